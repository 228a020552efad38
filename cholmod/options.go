package cholmod

import "fmt"

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

func (o Ordering) String() string {
	switch o {
	case OrderDefault:
		return "default"
	case OrderNatural:
		return "natural"
	case OrderAMD:
		return "amd"
	case OrderMETIS:
		return "metis"
	case OrderNESDIS:
		return "nesdis"
	case OrderCHOLMOD:
		return "cholmod"
	case OrderBest:
		return "best"
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
	// AutoSolve chooses for solve-dominated work (many solves per
	// factorisation, as in the heat kernel): simplicial when
	// flops/nnz(L) is below a threshold that depends on the solve kernel,
	// AutoSolveSwitch for BlockKernel and AutoSolveSwitchCHOLMOD for
	// CHOLMODKernel. On this project's grid Laplacians with NESDIS that is,
	// with the block kernel, every 2-D grid up to 200² (supernodal from
	// 16³ on); with cholmod_solve2 every 2-D grid up to 200² and 3-D up to
	// 16³ (supernodal from 20³ on).
	AutoSolve
)

// AutoSolveSwitch is the flops/nnz(L) threshold of AutoSolve with the
// BlockKernel. With NESDIS, 20-column solves of the block kernel were
// about as fast with either factor on 2-D grids (50²: ratio 33; 200²: 100)
// and 15–40% faster with a supernodal one on 16³ (145) and 32³.
const AutoSolveSwitch = 120

// AutoSolveSwitchCHOLMOD is the threshold of AutoSolve with the
// CHOLMODKernel. With NESDIS and one BLAS thread, cholmod_solve2's
// simplicial 20-column solves were faster at 16³ (ratio 145) and 200²
// (100), its supernodal ones from 20³ (286) on.
const AutoSolveSwitchCHOLMOD = 250

func (m Mode) String() string {
	switch m {
	case Supernodal:
		return "supernodal"
	case Simplicial:
		return "simplicial"
	case Auto:
		return "auto"
	case AutoSolve:
		return "autosolve"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// FundamentalMaxN is the largest order for which a factor analysed for the
// BlockKernel has fundamental supernodes: CHOLMOD's relaxed amalgamation,
// which merges supernodes at the price of explicit zeros so that its BLAS
// calls are larger, is turned off. The block kernel's loops gain less from
// the larger supernodes than they lose to the zeros (on a 50² grid the
// relaxed factor stores 64 700 entries for nnz(L) = 38 300): 18-column
// solves on 50² were 15-25% faster and a toydataF4 evaluation 5-9%; at 32³
// a 20-column Apply was 5-40% faster (two sets of runs), but the
// factorisation, whose BLAS calls shrink, took 1.5-5 times as long (1.3-3.1 s
// against 0.56-1.0 s), more than an evaluation's solves gain back (fast
// mode makes about 28 kernel applications per factorisation at 32³); at
// 16³ evaluations were the same within the machine's noise.
const FundamentalMaxN = 20_000

// SolveKernel selects the code that runs Factor.Solve on CHOLMOD's factor.
type SolveKernel int

const (
	// BlockKernel (the default) is gmlg's own block solve (blocksolve.c):
	// the right-hand sides are gathered into a permuted, interleaved
	// workspace (row k holds the columns' entries k side by side, up to 32
	// columns per pass), both triangular solves run on it with the width
	// known at compile time and SIMD across the columns, and the result is
	// scattered back. For the heat kernel's 8–32-column blocks it is several
	// times faster than cholmod_solve2 (cholmod's BenchmarkSolve20). It
	// agrees with CHOLMODKernel to round-off (the same factorisation, the
	// same operations in another order). Analyze gives its factors of order
	// up to FundamentalMaxN fundamental supernodes (no explicit zeros).
	BlockKernel SolveKernel = iota
	// CHOLMODKernel is cholmod_solve2 (CHOLMOD_A), with its BLAS for
	// supernodal factors.
	CHOLMODKernel
)

func (k SolveKernel) String() string {
	switch k {
	case BlockKernel:
		return "block"
	case CHOLMODKernel:
		return "cholmod"
	}
	return fmt.Sprintf("SolveKernel(%d)", int(k))
}

// AnalyzeOptions configures Analyze. A nil pointer or zero fields mean
// OrderDefault, Supernodal and BlockKernel.
type AnalyzeOptions struct {
	Ordering Ordering
	Mode     Mode
	Kernel   SolveKernel
}

// Info describes an analysed factor.
type Info struct {
	// Requested is the ordering asked for; Used is the one CHOLMOD
	// actually applied ("natural", "amd", "metis", "nesdis", "postordered",
	// ...), which differs for OrderCHOLMOD and OrderBest.
	Requested Ordering
	Used      string
	// Selected is the index of the winning method (Common->selected).
	Selected int
	// NNZL is nnz(L), lower triangle with diagonal, excluding the explicit
	// zeros a supernodal factor stores for amalgamation.
	NNZL int
	// Flops is CHOLMOD's flop count of one numeric LL' factorisation.
	Flops float64
	// Supernodal tells whether the factor is supernodal.
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

// Backend plugs CHOLMOD into package factor's interfaces:
//
//	var f factor.Factorizer = cholmod.Backend{}
//
// Each Factor it returns owns its own Common, matrix and factor, so factors
// are independent; Close frees all of them.
type Backend struct {
	// Ordering, when not OrderDefault, overrides the ordering asked for in
	// factor.Options. Otherwise factor.OrderingDefault maps to
	// DefaultOrdering, OrderingNatural to OrderNatural, OrderingAMD to
	// OrderAMD and OrderingNestedDissection to OrderNESDIS.
	Ordering Ordering
	// Mode is the factorisation kind; zero is Supernodal.
	Mode Mode
	// Kernel is the solve kernel; zero is BlockKernel.
	Kernel SolveKernel
}

// Name returns "cholmod".
func (Backend) Name() string { return "cholmod" }
