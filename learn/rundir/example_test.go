package rundir_test

import (
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	"github.com/gmlg/gmlg/learn/rundir"
)

func Example() {
	tmp, err := os.MkdirTemp("", "rundir-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "run")
	spec := rundir.Spec{Command: "demo", Outputs: []string{"result-*.txt"}}

	// A first run takes the new folder and writes its outputs.
	d, err := rundir.Create(out, spec, rundir.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, name := range []string{"result-1.txt", "result-2.txt"} {
		os.WriteFile(filepath.Join(out, name), []byte("done\n"), 0o644)
	}
	// While it runs, nobody else can take the folder.
	_, err = rundir.Open(out, []rundir.Spec{spec}, rundir.Options{})
	fmt.Println("busy:", errors.Is(err, rundir.ErrBusy))
	d.Close()

	// A second run needs Force, which replaces the first run as a whole
	// and keeps the user's notes.
	os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine\n"), 0o644)
	_, err = rundir.Create(out, spec, rundir.Options{})
	fmt.Println("not empty:", errors.Is(err, rundir.ErrNotEmpty))
	d, err = rundir.Create(out, spec, rundir.Options{Force: true})
	if err != nil {
		log.Fatal(err)
	}
	os.WriteFile(filepath.Join(out, "result-1.txt"), []byte("again\n"), 0o644)
	d.Close()
	// The manifest names the command and its outputs for the next --force.
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		fmt.Println(e.Name())
	}
	// Output:
	// busy: true
	// not empty: true
	// .gmlg-manifest.json
	// notes.txt
	// result-1.txt
}

func ExampleWrite() {
	dir, err := os.MkdirTemp("", "rundir-write")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "greeting.txt")

	if err := rundir.WriteFile(path, []byte("hello\n"), 0); err != nil {
		log.Fatal(err)
	}
	// A failing writer leaves the previous content in place.
	err = rundir.Write(path, 0, func(w io.Writer) error {
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

func ExampleMarshalSorted() {
	params := struct {
		THeat float64 `json:"t_heat"`
		KHeat int     `json:"k_heat"`
		Loss  int     `json:"loss"`
	}{3e-3, 100, 1}
	b, err := rundir.MarshalSorted(params)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(b))
	// Output:
	// {
	//   "k_heat": 100,
	//   "loss": 1,
	//   "t_heat": 0.003
	// }
}
