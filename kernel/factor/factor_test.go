package factor

import (
	"errors"
	"fmt"
	"testing"
)

func TestPatternValidate(t *testing.T) {
	good := Pattern{N: 3, ColPtr: []int{0, 2, 4, 5}, RowIdx: []int{0, 1, 1, 2, 2}}
	if err := good.Validate(); err != nil {
		t.Fatalf("valid pattern rejected: %v", err)
	}
	for _, c := range []struct {
		name string
		p    *Pattern
	}{
		{"nil", nil},
		{"empty", &Pattern{}},
		{"short colptr", &Pattern{N: 3, ColPtr: []int{0, 2, 4}, RowIdx: []int{0, 1, 1, 2}}},
		{"bad end", &Pattern{N: 2, ColPtr: []int{0, 1, 3}, RowIdx: []int{0, 1}}},
		{"missing diagonal", &Pattern{N: 2, ColPtr: []int{0, 1, 2}, RowIdx: []int{1, 1}}},
		{"empty column", &Pattern{N: 2, ColPtr: []int{0, 2, 2}, RowIdx: []int{0, 1}}},
		{"unsorted", &Pattern{N: 3, ColPtr: []int{0, 3, 4, 5}, RowIdx: []int{0, 2, 1, 1, 2}}},
		{"upper triangle", &Pattern{N: 2, ColPtr: []int{0, 1, 3}, RowIdx: []int{0, 1, 0}}},
		{"out of range", &Pattern{N: 2, ColPtr: []int{0, 2, 3}, RowIdx: []int{0, 2, 1}}},
	} {
		if err := c.p.Validate(); err == nil {
			t.Errorf("%s: accepted", c.name)
		}
	}
}

func TestOrderingRoundTrip(t *testing.T) {
	for o := OrderingDefault; o <= OrderingNestedDissection; o++ {
		got, err := ParseOrdering(o.String())
		if err != nil || got != o {
			t.Errorf("ParseOrdering(%q) = %v, %v", o.String(), got, err)
		}
	}
	if _, err := ParseOrdering("metis2"); err == nil {
		t.Error("unknown ordering accepted")
	}
}

func TestNotPosDefError(t *testing.T) {
	err := fmt.Errorf("kernel: factorise: %w", &NotPosDefError{Backend: "go", Column: 7})
	if !errors.Is(err, ErrNotPosDef) {
		t.Error("errors.Is(ErrNotPosDef) is false")
	}
	var np *NotPosDefError
	if !errors.As(err, &np) || np.Column != 7 {
		t.Errorf("errors.As gave %v", np)
	}
}
