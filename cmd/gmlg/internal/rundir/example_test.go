package rundir_test

import (
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/gmlg/gmlg/cmd/gmlg/internal/rundir"
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
