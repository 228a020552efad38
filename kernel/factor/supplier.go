package factor

// A Supplier orders a pattern and computes numeric factorisations for a
// backend that keeps everything else: the backend postorders the
// supplier's order, lays L out in supernodes (Layout) and solves with it;
// each Numeric.Fill writes L's values at the Layout's places. So one engine
// schedules the solves whatever computes L: the "cholmod" backend is
// package sparsechol's engine with CHOLMOD as its supplier.
type Supplier interface {
	// Name is the name the backend reports ("cholmod").
	Name() string
	// Order returns a fill-reducing pivot order of p, perm[k] being the
	// vertex of pivot k, and the name of the ordering used. The backend
	// may reorder the pivots further without changing the fill (a
	// postorder of the elimination tree).
	Order(p *Pattern, opt *Options) (perm []int, ordering string, err error)
	// Prepare readies the numeric factorisation of matrices with pattern p
	// in the backend's final pivot order and layout (lay.Perm). Neither p
	// nor lay may be modified until the Numeric is closed.
	Prepare(p *Pattern, lay *Layout) (Numeric, error)
}

// Numeric is a supplier's factorisation of one pattern in one layout.
type Numeric interface {
	// Fill factorises the matrix whose values are aligned with the
	// pattern's RowIdx and writes every entry of L into lx at its place in
	// the layout. It writes no other element of lx, so those stay as the
	// caller set them (zero). A matrix that is not positive definite
	// gives an error matching ErrNotPosDef.
	Fill(lx, values []float64) error
	// Close releases the supplier's resources; it is idempotent.
	Close() error
}

// Layout says where a backend keeps the Cholesky factor L of P·A·Pᵀ, in
// supernodes of consecutive columns: supernode s holds the columns
// First[s] to First[s+1]−1 and the rows Rows[RowPtr[s]:RowPtr[s+1]]
// (increasing, its own columns first), with L's values in a row-major
// block of that many rows and First[s+1]−First[s] columns at Off[s] of
// the backend's value slice. Rows and columns are pivot numbers; Perm[k]
// is the vertex of pivot k. An entry of L outside every block is zero.
type Layout struct {
	Perm   []int
	First  []int
	RowPtr []int
	Rows   []int32
	Off    []int
}
