package npyfile_test

import (
	"bytes"
	"fmt"
	"log"

	"github.com/gmlg/gmlg/cmd/gmlg/internal/npyfile"
)

func Example() {
	// A 2×3 array written as big-endian int16 in Fortran order, as NumPy
	// would for np.asfortranarray(a.astype('>i2')).
	a := &npyfile.Array{Shape: []int{2, 3}, Data: []float64{1, 2, 3, 4, 5, 6}}
	var buf bytes.Buffer
	if err := npyfile.Write(&buf, a, &npyfile.WriteOptions{DType: ">i2", Fortran: true}); err != nil {
		log.Fatal(err)
	}

	// Reading gives float64 in C order whatever the file's dtype and order.
	b, err := npyfile.Read(&buf)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(b.Shape, b.Data)

	// Corrupt input gives an error, never a panic.
	_, err = npyfile.Read(bytes.NewReader([]byte("\x93NUMPY\x01\x00\xff")))
	fmt.Println(err)
	// Output:
	// [2 3] [1 2 3 4 5 6]
	// npyfile: truncated .npy file: header length cut short
}
