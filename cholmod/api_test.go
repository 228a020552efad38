package cholmod

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// buildFiles parses the package's non-test Go files as the go command selects
// them with cgo on or off, whatever the build running the test.
func buildFiles(t *testing.T, cgo bool) []*ast.File {
	t.Helper()
	ctx := build.Default
	ctx.CgoEnabled = cgo
	pkg, err := ctx.ImportDir(".", 0)
	if err != nil {
		t.Fatalf("list package files (cgo=%v): %v", cgo, err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range slices.Concat(pkg.GoFiles, pkg.CgoFiles) {
		f, err := parser.ParseFile(fset, filepath.Join(pkg.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("parse %s: %v", name, err)
		}
		files = append(files, f)
	}
	return files
}

// exportedAPI maps every exported constant, variable, function, type and
// method of exported types declared in files to its signature: parameter and
// result types for functions, exported fields for structs, the type
// expression otherwise. Parameter names and unexported fields do not count,
// so a stub may differ from the real package in those alone.
func exportedAPI(files []*ast.File) map[string]string {
	api := make(map[string]string)
	for _, f := range files {
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				addFunc(api, d)
			case *ast.GenDecl:
				addGen(api, d)
			}
		}
	}
	return api
}

func addFunc(api map[string]string, d *ast.FuncDecl) {
	if !d.Name.IsExported() {
		return
	}
	key := "func " + d.Name.Name
	if d.Recv != nil {
		recv := d.Recv.List[0].Type
		base := recv
		if star, ok := base.(*ast.StarExpr); ok {
			base = star.X
		}
		if id, ok := base.(*ast.Ident); !ok || !id.IsExported() {
			return
		}
		key = "method (" + types.ExprString(recv) + ")." + d.Name.Name
	}
	api[key] = "(" + fieldTypes(d.Type.Params) + ") (" + fieldTypes(d.Type.Results) + ")"
}

// fieldTypes lists the types of a parameter or result list, one per name.
func fieldTypes(fl *ast.FieldList) string {
	if fl == nil {
		return ""
	}
	var out []string
	for _, f := range fl.List {
		for range max(len(f.Names), 1) {
			out = append(out, types.ExprString(f.Type))
		}
	}
	return strings.Join(out, ", ")
}

func addGen(api map[string]string, d *ast.GenDecl) {
	for _, spec := range d.Specs {
		switch s := spec.(type) {
		case *ast.TypeSpec:
			if s.Name.IsExported() {
				api["type "+s.Name.Name] = typeShape(s)
			}
		case *ast.ValueSpec:
			for _, n := range s.Names {
				if n.IsExported() {
					api[d.Tok.String()+" "+n.Name] = exprOrEmpty(s.Type)
				}
			}
		}
	}
}

// typeShape is a struct's exported fields or any other type's expression.
func typeShape(s *ast.TypeSpec) string {
	st, ok := s.Type.(*ast.StructType)
	if !ok {
		alias := ""
		if s.Assign.IsValid() {
			alias = "= "
		}
		return alias + types.ExprString(s.Type)
	}
	var fields []string
	for _, f := range st.Fields.List {
		typ := types.ExprString(f.Type)
		if len(f.Names) == 0 {
			name := strings.TrimPrefix(typ, "*")
			name = name[strings.LastIndex(name, ".")+1:]
			if token.IsExported(name) {
				fields = append(fields, typ)
			}
		}
		for _, n := range f.Names {
			if n.IsExported() {
				fields = append(fields, n.Name+" "+typ)
			}
		}
	}
	return "struct{" + strings.Join(fields, "; ") + "}"
}

func exprOrEmpty(e ast.Expr) string {
	if e == nil {
		return ""
	}
	return types.ExprString(e)
}

// apiDiff lists, sorted, the entries missing from one API or declared
// differently in the two.
func apiDiff(cgo, stub map[string]string) []string {
	var diff []string
	for k, v := range cgo {
		w, ok := stub[k]
		switch {
		case !ok:
			diff = append(diff, "only with cgo: "+k+" "+v)
		case v != w:
			diff = append(diff, "differs: "+k+": cgo "+v+", stub "+w)
		}
	}
	for k, w := range stub {
		if _, ok := cgo[k]; !ok {
			diff = append(diff, "only without cgo: "+k+" "+w)
		}
	}
	slices.Sort(diff)
	return diff
}

// TestStubAPI checks that a build without cgo exports exactly the API of a
// cgo build, so that stub.go cannot drift from the binding.
func TestStubAPI(t *testing.T) {
	withCgo := exportedAPI(buildFiles(t, true))
	withoutCgo := exportedAPI(buildFiles(t, false))
	for _, key := range []string{"func NewCommon", "method (*Factor).Solve", "method (Supplier).Order", "var ErrNoCgo", "type Common"} {
		if _, ok := withCgo[key]; !ok {
			t.Errorf("cgo build's API lacks %q: the extraction is broken", key)
		}
	}
	for _, d := range apiDiff(withCgo, withoutCgo) {
		t.Error(d)
	}
}

// TestAPIDiff checks that the comparison behind TestStubAPI sees the
// differences that matter and ignores those that do not.
func TestAPIDiff(t *testing.T) {
	// shared is declared alike on both sides of every case.
	const shared = `package p
type K int
const C K = 1
var V string
func New() (*T, error) { return nil, nil }
`
	const real = shared + `type T struct { A int; b float64 }
func (t *T) Do(x, y []float64, n int) error { return nil }
func (t *T) hidden() {}
type inner struct{}
func (inner) Exported() {}
`
	tests := []struct {
		name, stub string
		want       []string
	}{
		{"same API, other names and unexported parts", `type T struct{ A int }
func (*T) Do(a, b []float64, cols int) error { return nil }
`, nil},
		{"missing method", `type T struct{ A int }`,
			[]string{"only with cgo: method (*T).Do ([]float64, []float64, int) (error)"}},
		{"other parameter type", `type T struct{ A int }
func (*T) Do(x, y []float32, n int) error { return nil }
`, []string{"differs: method (*T).Do: cgo ([]float64, []float64, int) (error), stub ([]float32, []float32, int) (error)"}},
		{"exported field and extra function", `type T struct{ A, B int }
func (*T) Do(x, y []float64, n int) error { return nil }
func Extra() {}
`, []string{"differs: type T: cgo struct{A int}, stub struct{A int; B int}", "only without cgo: func Extra () ()"}},
		{"value receiver instead of pointer", `type T struct{ A int }
func (T) Do(x, y []float64, n int) error { return nil }
`, []string{"only with cgo: method (*T).Do ([]float64, []float64, int) (error)", "only without cgo: method (T).Do ([]float64, []float64, int) (error)"}},
	}
	realAPI := exportedAPI([]*ast.File{parseSource(t, real)})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := apiDiff(realAPI, exportedAPI([]*ast.File{parseSource(t, shared+tc.stub)}))
			if !slices.Equal(got, tc.want) {
				t.Errorf("apiDiff:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func parseSource(t *testing.T, src string) *ast.File {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return f
}
