package sparsechol_test

import (
	"fmt"

	"github.com/gmlg/gmlg/kernel/factor"
	"github.com/gmlg/gmlg/kernel/sparsechol"
)

// Solve M x = b for M = I + L on a path graph 0–1–2 (L the unit-weight
// Laplacian).
func Example() {
	// Lower triangle of M = [[2,-1,0],[-1,3,-1],[0,-1,2]] in CSC form.
	pat := &factor.Pattern{N: 3, ColPtr: []int{0, 2, 4, 5}, RowIdx: []int{0, 1, 1, 2, 2}}
	vals := []float64{2, -1, 3, -1, 2}
	f, err := sparsechol.Backend{}.Analyze(pat, &factor.Options{Ordering: factor.OrderingAMD})
	if err != nil {
		panic(err)
	}
	defer f.Close()
	if err := f.Factorize(vals); err != nil {
		panic(err)
	}
	// Two right-hand sides, column-major.
	b := []float64{1, 0, 1, 1, 1, 1}
	x := make([]float64, 6)
	if err := f.Solve(x, b, 2); err != nil {
		panic(err)
	}
	fmt.Printf("%.4f\n", x)
	fmt.Println(f.Info().Backend, f.Info().NNZL)
	// Output:
	// [0.7500 0.5000 0.7500 1.0000 1.0000 1.0000]
	// go 5
}

// A matrix that is not positive definite gives a *factor.NotPosDefError
// naming the column in the original numbering.
func Example_notPosDef() {
	pat := &factor.Pattern{N: 3, ColPtr: []int{0, 2, 4, 5}, RowIdx: []int{0, 1, 1, 2, 2}}
	f, _ := sparsechol.Backend{}.Analyze(pat, nil)
	err := f.Factorize([]float64{2, -1, 3, -1, -2})
	fmt.Println(err)
	// Output:
	// sparsechol: factorize: go: matrix not positive definite (non-positive pivot at column 2)
}

// Order exposes the fill-reducing permutation; on a grid the default is the
// geometric nested dissection.
func ExampleOrder() {
	// The 3×3 grid graph (axis 0 fastest), M = I + L.
	const n = 3
	pat := &factor.Pattern{N: n * n, ColPtr: []int{0}}
	for v := 0; v < n*n; v++ {
		pat.RowIdx = append(pat.RowIdx, v)
		if v%n < n-1 {
			pat.RowIdx = append(pat.RowIdx, v+1)
		}
		if v+n < n*n {
			pat.RowIdx = append(pat.RowIdx, v+n)
		}
		pat.ColPtr = append(pat.ColPtr, len(pat.RowIdx))
	}
	perm, name, err := sparsechol.Order(pat, &factor.Options{Grid: []int{n, n}})
	if err != nil {
		panic(err)
	}
	fmt.Println(name, len(perm))
	// Output:
	// nd-geometric 9
}
