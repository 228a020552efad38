package learn

// funcObserver is an Observer of optional functions for the tests: a nil
// field ignores its reports.
type funcObserver struct {
	start  func(level int, dims []int, obj *Objective)
	iter   func(*Progress) error
	trial  func(Trial)
	scored func(PolishScore)
	done   func(LevelReport)
	ckpt   func([]byte) error
}

func (o *funcObserver) LevelStart(level int, dims []int, obj *Objective) {
	if o.start != nil {
		o.start(level, dims, obj)
	}
}

func (o *funcObserver) Iteration(p *Progress) error {
	if o.iter != nil {
		return o.iter(p)
	}
	return nil
}

func (o *funcObserver) Trial(t Trial) {
	if o.trial != nil {
		o.trial(t)
	}
}

func (o *funcObserver) Scored(s PolishScore) {
	if o.scored != nil {
		o.scored(s)
	}
}

func (o *funcObserver) LevelDone(r LevelReport) {
	if o.done != nil {
		o.done(r)
	}
}

func (o *funcObserver) Checkpoint(data []byte) error {
	if o.ckpt != nil {
		return o.ckpt(data)
	}
	return nil
}
