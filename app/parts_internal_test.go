package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// parts are the types the service's work lives in (doc.go); Service makes
// them and routes each call to one.
var parts = []string{"door", "writer", "reviewer", "reading", "lifecycle", "registrar"}

// frontsOwn are the Service methods with work of their own: making and
// closing the parts, and what spans them all (what waits for the user,
// backups of the whole vault, the audit chain's verification).
var frontsOwn = []string{"BuildIndex", "WaitIndexed", "Close", "WaitingFor", "Export", "RestoreBackup", "RestoreBackupWith", "VerifyAudit"}

// TestServiceIsAFront holds the shape doc.go describes, so that the
// direction inside the package stays after whoever changes it next:
//   - no part holds the Service or takes it: a part reaches another part
//     through a field of that part's type (or a function), never back
//     through the front;
//   - every Service method outside frontsOwn is one statement that hands
//     the call to a part (s.life.Confirm(...), s.get(...) for the door's).
func TestServiceIsAFront(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var decls []ast.Decl
	// doorMethods are the door's methods; partFields the Service's
	// fields that hold a part.
	doorMethods, partFields := map[string]bool{}, map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && receiver(fd) == "door" {
				doorMethods[fd.Name.Name] = true
			}
			if gd, ok := d.(*ast.GenDecl); ok {
				for _, sp := range gd.Specs {
					if ts, ok := sp.(*ast.TypeSpec); ok && ts.Name.Name == "Service" {
						for _, fl := range ts.Type.(*ast.StructType).Fields.List {
							if st, ok := fl.Type.(*ast.StarExpr); ok {
								if id, ok := st.X.(*ast.Ident); ok && slices.Contains(parts, id.Name) {
									for _, n := range fl.Names {
										partFields[n.Name] = true
									}
								}
							}
						}
					}
				}
			}
		}
		decls = append(decls, f.Decls...)
	}
	methods, delegating := 0, 0
	for _, d := range decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				ts, ok := sp.(*ast.TypeSpec)
				if !ok || !slices.Contains(parts, ts.Name.Name) {
					continue
				}
				ast.Inspect(ts.Type, func(n ast.Node) bool {
					if id, ok := n.(*ast.Ident); ok && id.Name == "Service" {
						t.Errorf("%s: the part %s holds the Service", fset.Position(id.Pos()), ts.Name.Name)
					}
					return true
				})
			}
		case *ast.FuncDecl:
			recv := receiver(d)
			if slices.Contains(parts, recv) {
				ast.Inspect(d, func(n ast.Node) bool {
					if id, ok := n.(*ast.Ident); ok && id.Name == "Service" {
						t.Errorf("%s: %s.%s reaches the Service", fset.Position(id.Pos()), recv, d.Name.Name)
					}
					return true
				})
			}
			if recv != "Service" {
				continue
			}
			methods++
			if slices.Contains(frontsOwn, d.Name.Name) {
				continue
			}
			if !delegates(d, doorMethods, partFields) {
				t.Errorf("%s: Service.%s does work of its own: hand it to a part (or, if it spans them all, list it in frontsOwn)", fset.Position(d.Pos()), d.Name.Name)
				continue
			}
			delegating++
		}
	}
	if len(partFields) != len(parts)-1 { // the door is embedded
		t.Errorf("the Service holds %d parts by pointer, want the %d of parts but the door", len(partFields), len(parts)-1)
	}
	if methods < 50 || delegating < methods-len(frontsOwn) {
		t.Errorf("found %d Service methods, %d of them delegating: the test did not read the package", methods, delegating)
	}
}

// receiver is the name of d's receiver type, "" for a function.
func receiver(d *ast.FuncDecl) string {
	if d.Recv == nil {
		return ""
	}
	t := d.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// delegates reports whether d's body is one statement that calls a
// method of a part: s.PART.M(...) or, for the door the Service embeds,
// s.m(...) where m is the door's.
func delegates(d *ast.FuncDecl, doorMethods, partFields map[string]bool) bool {
	if d.Body == nil || len(d.Body.List) != 1 {
		return false
	}
	var call ast.Expr
	switch st := d.Body.List[0].(type) {
	case *ast.ReturnStmt:
		if len(st.Results) != 1 {
			return false
		}
		call = st.Results[0]
	case *ast.ExprStmt:
		call = st.X
	default:
		return false
	}
	c, ok := call.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	switch x := sel.X.(type) {
	case *ast.SelectorExpr: // s.part.Method
		id, ok := x.X.(*ast.Ident)
		return ok && id.Name == d.Recv.List[0].Names[0].Name && partFields[x.Sel.Name]
	case *ast.Ident: // s.method of the embedded door
		return x.Name == d.Recv.List[0].Names[0].Name && doorMethods[sel.Sel.Name]
	}
	return false
}
