//go:build cgo

package cholmod

import (
	"fmt"

	"github.com/gmlg/gmlg/kernel/factor"
)

var (
	_ factor.Factorizer = Backend{}
	_ factor.StepSolver = (*backendFactor)(nil)
)

// Analyze validates p, copies it into CHOLMOD memory once and computes the
// ordering and symbolic factorisation. opt.Grid and opt.Threads are not
// used: CHOLMOD orders any graph, and Analyze sets the process-wide OpenBLAS
// thread count to 1 (SetBLASThreads). OpenBLAS's threaded products round
// differently for each thread count, so a factorisation on one thread is
// what keeps every result independent of the number of threads; it is a
// small share of an evaluation, which the solves dominate.
func (b Backend) Analyze(p *factor.Pattern, opt *factor.Options) (factor.Factor, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("cholmod: analyze: %w", err)
	}
	var o factor.Options
	if opt != nil {
		o = *opt
	}
	ord := b.Ordering
	if ord == OrderDefault {
		switch o.Ordering {
		case factor.OrderingDefault:
			ord = DefaultOrdering
		case factor.OrderingNatural:
			ord = OrderNatural
		case factor.OrderingAMD:
			ord = OrderAMD
		case factor.OrderingNestedDissection:
			ord = OrderNESDIS
		default:
			return nil, fmt.Errorf("cholmod: analyze: unknown ordering %v", o.Ordering)
		}
	}
	SetBLASThreads(1)

	cc, err := NewCommon()
	if err != nil {
		return nil, err
	}
	a, err := cc.NewSparse(p.N, p.ColPtr, p.RowIdx, nil)
	if err != nil {
		cc.Close()
		return nil, err
	}
	f, err := cc.Analyze(a, &AnalyzeOptions{Ordering: ord, Mode: b.Mode, Kernel: b.Kernel})
	if err != nil {
		cc.Close()
		return nil, err
	}
	return &backendFactor{cc: cc, a: a, f: f}, nil
}

// backendFactor is the factor.Factor of Backend.
type backendFactor struct {
	cc *Common
	a  *Sparse
	f  *Factor
}

func (b *backendFactor) Factorize(values []float64) error {
	if b.cc == nil {
		panic("cholmod: Factorize on a closed factor")
	}
	if err := validateValues(b.a.NNZ(), values); err != nil {
		return fmt.Errorf("cholmod: factorize: %w", err)
	}
	copy(b.a.x, values)
	return b.f.Factorize(b.a)
}

func (b *backendFactor) Solve(dst, rhs []float64, cols int) error {
	if b.cc == nil {
		panic("cholmod: Solve on a closed factor")
	}
	return b.f.Solve(dst, rhs, cols)
}

func (b *backendFactor) SolveSteps(out, rhs []float64, cols, steps int, keep, reverse bool) error {
	if b.cc == nil {
		panic("cholmod: SolveSteps on a closed factor")
	}
	return b.f.SolveSteps(out, rhs, cols, steps, keep, reverse)
}

func (b *backendFactor) SolveStepsParallel(out, rhs []float64, cols, steps int, keep, reverse bool) error {
	if b.cc == nil {
		panic("cholmod: SolveStepsParallel on a closed factor")
	}
	return b.f.SolveStepsParallel(out, rhs, cols, steps, keep, reverse)
}

func (b *backendFactor) TreeSplits() bool {
	if b.cc == nil {
		panic("cholmod: TreeSplits on a closed factor")
	}
	return b.f.TreeSplits()
}

func (b *backendFactor) AdjointSteps(gsrc, gw, src, g []float64, cols, steps int, from, to []int, coef float64, parallel bool) error {
	if b.cc == nil {
		panic("cholmod: AdjointSteps on a closed factor")
	}
	threads := 1
	if parallel {
		threads = 2
	}
	return b.f.AdjointSteps(gsrc, gw, src, g, cols, steps, from, to, coef, threads)
}

func (b *backendFactor) AdjointSupported() bool {
	if b.cc == nil {
		panic("cholmod: AdjointSupported on a closed factor")
	}
	return b.f.AdjointSupported()
}

func (b *backendFactor) Tree() (factor.Tree, error) {
	if b.cc == nil {
		panic("cholmod: Tree on a closed factor")
	}
	return b.f.Tree()
}

func (b *backendFactor) Info() factor.Info {
	if b.cc == nil {
		panic("cholmod: Info on a closed factor")
	}
	in := b.f.Info()
	return factor.Info{Backend: "cholmod", Ordering: in.Used, NNZL: in.NNZL, Supernodal: in.Supernodal}
}

func (b *backendFactor) Close() error {
	if b.cc == nil {
		return nil
	}
	err := b.cc.Close()
	b.cc, b.a, b.f = nil, nil, nil
	return err
}
