package cholmod

import (
	"fmt"

	"github.com/gmlg/gmlg/kernel/factor"
)

// Ordering selects the fill-reducing ordering computed by Analyze.
type Ordering int

const (
	// OrderDefault is the package's choice for grid-like graphs:
	// DefaultOrdering (NESDIS; see the benchmarks in doc.go).
	OrderDefault Ordering = iota
	// OrderNatural keeps the given vertex order (no postordering).
	OrderNatural
	// OrderAMD is approximate minimum degree.
	OrderAMD
	// OrderMETIS is METIS_NodeND nested dissection.
	OrderMETIS
	// OrderNESDIS is CHOLMOD's own nested dissection (METIS node
	// bisection applied recursively, then constrained minimum degree).
	OrderNESDIS
	// OrderCHOLMOD is CHOLMOD's default strategy (nmethods = 0): AMD, and
	// METIS as well when AMD's fill or flop count is high; the better wins.
	OrderCHOLMOD
	// OrderBest tries all nine of CHOLMOD's methods and keeps the one with
	// the fewest flops; the analysis is slow but done once.
	OrderBest
)

// DefaultOrdering is what OrderDefault resolves to.
const DefaultOrdering = OrderNESDIS

var orderingNames = [...]string{"default", "natural", "amd", "metis", "nesdis", "cholmod", "best"}

func (o Ordering) String() string {
	if o >= 0 && int(o) < len(orderingNames) {
		return orderingNames[o]
	}
	return fmt.Sprintf("Ordering(%d)", int(o))
}

// Mode selects the kind of numeric factorisation.
type Mode int

const (
	// Supernodal is a supernodal LL' factorisation (dense BLAS blocks); the
	// default. It is the fastest for 3-D grids and large 2-D grids.
	Supernodal Mode = iota
	// Simplicial is a column-by-column LL' factorisation without BLAS. It
	// can be faster for small or very sparse factors (e.g. 2-D grids of
	// up to ~100² vertices).
	Simplicial
	// Auto lets CHOLMOD choose: simplicial when flops/nnz(L) < 40, which
	// on grids means only the smallest 2-D ones.
	Auto
)

var modeNames = [...]string{"supernodal", "simplicial", "auto"}

func (m Mode) String() string {
	if m >= 0 && int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// AnalyzeOptions configures Analyze. A nil pointer or zero fields mean
// OrderDefault and Supernodal.
type AnalyzeOptions struct {
	Ordering Ordering
	Mode     Mode
	// Perm, when non-nil, is the pivot order to use as it is (Perm[k] is
	// the vertex of pivot k; no postorder), in place of an Ordering,
	// which must then be OrderDefault. Info.Used reports "given".
	Perm []int
}

// Info describes an analysed factor.
type Info struct {
	// Requested is the ordering asked for; Used is the one CHOLMOD
	// actually applied ("natural", "amd", "metis", "nesdis", "postordered",
	// ...), which differs for OrderCHOLMOD and OrderBest.
	Requested Ordering
	Used      string
	Selected  int // the index of the winning method (Common->selected)
	// NNZL is nnz(L), lower triangle with diagonal, excluding the explicit
	// zeros a supernodal factor stores for amalgamation.
	NNZL       int
	Flops      float64 // CHOLMOD's flop count of one numeric LL' factorisation
	Supernodal bool
}

// LFactor is a Cholesky factor exported in plain compressed sparse column
// form: L Lᵀ = P A Pᵀ with L lower triangular (diagonal first in each column,
// rows increasing) and Perm[k] the original index of the k-th pivot, i.e.
// (P A Pᵀ)[k][l] = A[Perm[k]][Perm[l]]. Exported from a supernodal factor it
// may hold explicit zeros (relaxed amalgamation), so len(Values) ≥ nnz(L).
type LFactor struct {
	N      int
	ColPtr []int
	RowIdx []int
	Values []float64
	Perm   []int
}

// Supplier is CHOLMOD as a factor.Supplier: it orders the pattern and
// computes the numeric factorisation, and the solving backend (package
// sparsechol's engine) keeps the layout, the solves and their adjoint:
//
//	sparsechol.Backend{Supplier: cholmod.Supplier{}}
//
// is the cgo build's "cholmod" backend. Each Numeric it prepares owns its
// own Common, matrix and factor.
type Supplier struct {
	// Ordering, when not OrderDefault, overrides the ordering asked for in
	// factor.Options. Otherwise factor.OrderingDefault maps to
	// DefaultOrdering, OrderingNatural to OrderNatural, OrderingAMD to
	// OrderAMD and OrderingNestedDissection to OrderNESDIS.
	Ordering Ordering
}

// Name returns "cholmod".
func (Supplier) Name() string { return "cholmod" }

// supplierOrderings maps factor.Options' orderings to the package's.
var supplierOrderings = map[factor.Ordering]Ordering{
	factor.OrderingDefault:          DefaultOrdering,
	factor.OrderingNatural:          OrderNatural,
	factor.OrderingAMD:              OrderAMD,
	factor.OrderingNestedDissection: OrderNESDIS,
}

// ordering resolves the ordering asked for by s and opt.
func (s Supplier) ordering(opt *factor.Options) (Ordering, error) {
	if s.Ordering != OrderDefault {
		return s.Ordering, nil
	}
	if opt == nil {
		return DefaultOrdering, nil
	}
	if o, ok := supplierOrderings[opt.Ordering]; ok {
		return o, nil
	}
	return 0, fmt.Errorf("cholmod: unknown ordering %v", opt.Ordering)
}
