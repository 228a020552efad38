package runinfo_test

import (
	"fmt"
	"log"

	"github.com/gmlg/gmlg/cmd/gmlg/internal/runinfo"
)

func ExampleMarshalSorted() {
	params := struct {
		THeat float64 `json:"t_heat"`
		KHeat int     `json:"k_heat"`
		Loss  int     `json:"loss"`
	}{3e-3, 100, 1}
	b, err := runinfo.MarshalSorted(params)
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
