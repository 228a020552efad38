package dataset

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Sort orders paths in place by the numbers in their names: first by the
// all-digit '-' fields of the basename compared as numbers (array-2 before
// array-10; array-SS-TT by sequence, then frame), then, for equal or absent
// fields, by the basename in natural order (digit runs compared as
// numbers: video_9 before video_10), then by the path itself.
func Sort(paths []string) {
	slices.SortStableFunc(paths, func(a, b string) int {
		return cmp.Or(compareFields(digitFields(a), digitFields(b)), compareNatural(stem(a), stem(b)), strings.Compare(a, b))
	})
}

// stem returns the basename of p without its extension.
func stem(p string) string {
	base := filepath.Base(p)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// digitFields returns the all-digit fields of p's stem split at '-'.
func digitFields(p string) []string {
	var nums []string
	for _, f := range strings.Split(stem(p), "-") {
		if isDigits(f) {
			nums = append(nums, f)
		}
	}
	return nums
}

// isDigits reports whether s is a non-empty string of ASCII digits.
func isDigits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }

// compareFields compares two lists of digit strings as numbers, field by
// field; a shorter list that is a prefix of the other comes first.
func compareFields(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if c := compareDigits(a[i], b[i]); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

// compareDigits compares two non-empty digit strings by their value, of
// any length: "007" equals "7", "10" is above "9".
func compareDigits(a, b string) int {
	a, b = trimZeros(a), trimZeros(b)
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

// trimZeros removes the leading zeros of a digit string ("000" gives "0");
// "" stays "", the key of the single sequence.
func trimZeros(s string) string {
	if t := strings.TrimLeft(s, "0"); t != "" || s == "" {
		return t
	}
	return "0"
}

// compareNatural compares a and b run by run: digit runs by value, other
// runs as strings.
func compareNatural(a, b string) int {
	for a != "" && b != "" {
		ra, rb := run(a), run(b)
		c := strings.Compare(ra, rb)
		if isDigits(ra) && isDigits(rb) {
			c = compareDigits(ra, rb)
		}
		if c != 0 {
			return c
		}
		a, b = a[len(ra):], b[len(rb):]
	}
	return len(a) - len(b)
}

// run returns the leading run of s: its leading digits, or everything up
// to the first digit.
func run(s string) string {
	digit := s[0] >= '0' && s[0] <= '9'
	i := 1
	for i < len(s) && (s[i] >= '0' && s[i] <= '9') == digit {
		i++
	}
	return s[:i]
}

// frameName is what a file's name says about its place: the sequence and
// frame numbers as written ("" when the name does not have them).
type frameName struct {
	seq, frame string
}

// checkNames returns an error naming the first two files whose names give
// the same sequence and frame numbers (array-1 and array-01), else one
// message per sequence whose frame numbers skip values, such as "sequence
// 00: frames 03, 04 missing", in the order of the sequences' first files.
// Files without frame numbers have no gaps.
func checkNames(paths []string, names []frameName) ([]string, error) {
	seen := map[frameName]string{}
	var order []string
	frames := map[string][]string{}
	label := map[string]string{}
	for i, nm := range names {
		if nm.frame == "" {
			continue
		}
		key := frameName{seq: trimZeros(nm.seq), frame: trimZeros(nm.frame)}
		if other, dup := seen[key]; dup {
			where := ""
			if nm.seq != "" {
				where = " of sequence " + key.seq
			}
			return nil, fmt.Errorf("dataset: %s and %s are both frame %s%s; rename or remove one of them",
				other, paths[i], key.frame, where)
		}
		seen[key] = paths[i]
		if _, ok := frames[key.seq]; !ok {
			order = append(order, key.seq)
			label[key.seq] = nm.seq
		}
		frames[key.seq] = append(frames[key.seq], nm.frame)
	}
	var out []string
	for _, k := range order {
		if missing := missingFrames(frames[k]); missing != "" {
			if label[k] != "" {
				missing = "sequence " + label[k] + ": " + missing
			}
			out = append(out, missing)
		}
	}
	return out, nil
}

// maxListed bounds the missing frame numbers a gap message lists.
const maxListed = 5

// missingFrames lists the numbers missing between the smallest and the
// largest of nums ("frames 03, 04 missing"), written as wide as nums[0];
// "" when none is missing or a number does not fit 64 bits.
func missingFrames(nums []string) string {
	vals := make([]uint64, len(nums))
	for i, s := range nums {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return ""
		}
		vals[i] = v
	}
	slices.Sort(vals)
	width := len(nums[0])
	var listed []string
	total := uint64(0)
	for i := 1; i < len(vals); i++ {
		for v := vals[i-1] + 1; v < vals[i]; v++ {
			if len(listed) == maxListed {
				total += vals[i] - v
				break
			}
			listed = append(listed, fmt.Sprintf("%0*d", width, v))
			total++
		}
	}
	switch {
	case total == 0:
		return ""
	case total == 1:
		return "frame " + listed[0] + " missing"
	case total > uint64(len(listed)):
		return fmt.Sprintf("frames %s, … missing (%d in all)", strings.Join(listed, ", "), total)
	}
	return "frames " + strings.Join(listed, ", ") + " missing"
}
