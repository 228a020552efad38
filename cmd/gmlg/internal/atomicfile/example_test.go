package atomicfile_test

import (
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	"github.com/gmlg/gmlg/cmd/gmlg/internal/atomicfile"
)

func Example() {
	dir, err := os.MkdirTemp("", "atomicfile-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "greeting.txt")

	if err := atomicfile.WriteFile(path, []byte("hello\n"), 0); err != nil {
		log.Fatal(err)
	}
	// A failing writer leaves the previous content in place.
	err = atomicfile.Write(path, 0, func(w io.Writer) error {
		fmt.Fprint(w, "half a gree")
		return fmt.Errorf("disk on fire")
	})
	fmt.Println("error:", err != nil)
	b, _ := os.ReadFile(path)
	fmt.Print(string(b))
	// Output:
	// error: true
	// hello
}
