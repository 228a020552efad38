//go:build cgo

package cholmod_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/gmlg/gmlg/cholmod"
	"github.com/gmlg/gmlg/kernel/factor"
	"github.com/gmlg/gmlg/kernel/sparsechol"
)

// pathSystem returns the lower triangle of A = I + L for the path graph
// 0–1–2–3–4 with unit weights, in CSC form.
func pathSystem() (n int, colPtr, rowIdx []int, values []float64) {
	n = 5
	colPtr = []int{0, 2, 4, 6, 8, 9}
	rowIdx = []int{0, 1, 1, 2, 2, 3, 3, 4, 4}
	values = []float64{2, -1, 3, -1, 3, -1, 3, -1, 2}
	return
}

func Example() {
	n, colPtr, rowIdx, values := pathSystem()

	cc, err := cholmod.NewCommon()
	if err != nil {
		log.Fatal(err)
	}
	defer cc.Close() // frees the matrix and the factor too

	a, err := cc.NewSparse(n, colPtr, rowIdx, values)
	if err != nil {
		log.Fatal(err)
	}
	f, err := cc.Analyze(a, &cholmod.AnalyzeOptions{Ordering: cholmod.OrderAMD})
	if err != nil {
		log.Fatal(err)
	}
	if err := f.Factorize(a); err != nil {
		log.Fatal(err)
	}
	// Two right-hand sides, column-major: b1 = A·1 (row sums), b2 = e_0.
	b := []float64{1, 1, 1, 1, 1, 1, 0, 0, 0, 0}
	x := make([]float64, len(b))
	if err := f.Solve(x, b, 2); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("x1 = %.4f\n", x[:n])
	fmt.Printf("x2 = %.4f\n", x[n:])
	in := f.Info()
	fmt.Println("ordering:", in.Used, "nnz(L):", in.NNZL)

	// New values on the same pattern: refactorise without a new analysis.
	for k := range values {
		values[k] *= 2
	}
	if err := a.SetValues(values); err != nil {
		log.Fatal(err)
	}
	if err := f.Factorize(a); err != nil {
		log.Fatal(err)
	}
	if err := f.Solve(x, b, 2); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("x1 = %.4f\n", x[:n])
	// Output:
	// x1 = [1.0000 1.0000 1.0000 1.0000 1.0000]
	// x2 = [0.6182 0.2364 0.0909 0.0364 0.0182]
	// ordering: amd nnz(L): 9
	// x1 = [0.5000 0.5000 0.5000 0.5000 0.5000]
}

// CHOLMOD factorises, and package sparsechol's engine lays L out and
// solves with it: the "cholmod" backend of package kernel.
func ExampleSupplier() {
	n, colPtr, rowIdx, values := pathSystem()
	var fz factor.Factorizer = sparsechol.Backend{Supplier: cholmod.Supplier{}} // NESDIS
	f, err := fz.Analyze(&factor.Pattern{N: n, ColPtr: colPtr, RowIdx: rowIdx}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	if err := f.Factorize(values); err != nil {
		log.Fatal(err)
	}
	b := []float64{1, 1, 1, 1, 1}
	if err := f.Solve(b, b, 1); err != nil { // in place
		log.Fatal(err)
	}
	fmt.Printf("%s: x = %.4f\n", fz.Name(), b)

	// A non-positive-definite matrix: the error carries the column.
	values[4] = -1 // A[2][2]
	err = f.Factorize(values)
	var npd *factor.NotPosDefError
	fmt.Println(errors.Is(err, factor.ErrNotPosDef), errors.As(err, &npd) && npd.Column == 2)
	// Output:
	// cholmod: x = [1.0000 1.0000 1.0000 1.0000 1.0000]
	// true true
}

func ExampleFactor_ExportL() {
	n, colPtr, rowIdx, values := pathSystem()
	cc, err := cholmod.NewCommon()
	if err != nil {
		log.Fatal(err)
	}
	defer cc.Close()
	a, _ := cc.NewSparse(n, colPtr, rowIdx, values)
	f, _ := cc.Analyze(a, &cholmod.AnalyzeOptions{Ordering: cholmod.OrderNatural, Mode: cholmod.Simplicial})
	if err := f.Factorize(a); err != nil {
		log.Fatal(err)
	}
	l, err := f.ExportL()
	if err != nil {
		log.Fatal(err)
	}
	// A path in natural order factorises without fill: L is bidiagonal.
	fmt.Println("perm:", l.Perm)
	fmt.Println("colPtr:", l.ColPtr)
	fmt.Printf("L[0][0]² = %.4f\n", l.Values[0]*l.Values[0])
	// Output:
	// perm: [0 1 2 3 4]
	// colPtr: [0 2 4 6 8 9]
	// L[0][0]² = 2.0000
}

// The output assumes OpenBLAS, the BLAS of Debian's libcholmod.
func ExampleSetBLASThreads() {
	prev := cholmod.BLASThreads() // 0 when OpenBLAS is not the BLAS
	ok := cholmod.SetBLASThreads(1)
	fmt.Println("OpenBLAS found:", ok, "threads:", cholmod.BLASThreads())
	cholmod.SetBLASThreads(prev)
	// Output:
	// OpenBLAS found: true threads: 1
}
