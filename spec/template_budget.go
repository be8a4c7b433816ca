package spec

import (
	"errors"
	"fmt"
	"reflect"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"text/template"
	"weak"
)

// budget is what one execution of a spec template may still write, build and do; it is the execution's
// writer.
type budget struct {
	out                   strings.Builder
	outLeft, outLimit     int
	buildLeft, buildLimit int
	stepsLeft             int
}

func (b *budget) Write(p []byte) (int, error) {
	if err := b.step(1); err != nil {
		return 0, err
	}
	if len(p) > b.outLeft {
		return 0, fmt.Errorf("%w (%d bytes)", ErrTemplateOutput, b.outLimit)
	}
	b.outLeft -= len(p)
	return b.out.Write(p)
}

func (b *budget) step(n int) error {
	if n > b.stepsLeft {
		b.stepsLeft = 0
		return fmt.Errorf("%w: it takes more than %d steps (writes, function calls and range iterations)", ErrTemplateBudget, TemplateSteps)
	}
	b.stepsLeft -= n
	return nil
}

func (b *budget) build(n int) error {
	if n > b.buildLeft {
		b.buildLeft = 0
		return fmt.Errorf("%w: its functions build more than %d bytes", ErrTemplateBudget, b.buildLimit)
	}
	b.buildLeft -= n
	return nil
}

// execState is where a template's functions find the budget of the execution that calls them: set by
// Execute for the length of one execution (a template's executions take turns on it, or run on clones).
type execState struct {
	cur atomic.Pointer[budget]
}

// step charges n steps (and one call) to the current execution.
func (st *execState) step(n int) error {
	if st == nil {
		return nil
	}
	if b := st.cur.Load(); b != nil {
		return b.step(n)
	}
	return nil
}

// reserve fails, before a function allocates, when a value of about n bytes would not fit what is left to
// build; build then charges what it did build. Outside an execution a value may be up to TemplateOutput.
func (st *execState) reserve(n int) error {
	if st != nil {
		if b := st.cur.Load(); b != nil {
			if n > b.buildLeft {
				return b.build(n)
			}
			return nil
		}
	}
	if n > TemplateOutput {
		return fmt.Errorf("%w: a function would build more than %d bytes", ErrTemplateBudget, TemplateOutput)
	}
	return nil
}

// build charges a call that builds a value of n bytes.
func (st *execState) build(n int) error {
	if st != nil {
		if b := st.cur.Load(); b != nil {
			if err := b.step(1); err != nil {
				return err
			}
			return b.build(n)
		}
	}
	return st.reserve(n)
}

// templateState is what Execute knows of a template ParseTemplateFor made.
type templateState struct {
	// own budgets the executions of the template itself, one at a time (busy).
	own  *execState
	busy sync.Mutex
	// clones are copies of the template with functions of their own, for executions that overlap.
	clones sync.Pool
	// rangeWork is what the template's ranges do per element of the data (rangeWork).
	rangeWork int
	// builds reports a template that calls a function whose result grows with its arguments, or ranges: what
	// it does may grow faster than its data.
	builds bool
}

type clone struct {
	t  *template.Template
	st *execState
}

// execute runs t (whose state ts is) with the budget b: on t itself, or, when another execution is using
// it, on a clone.
func (ts *templateState) execute(t *template.Template, b *budget, data any) error {
	if ts.busy.TryLock() {
		defer ts.busy.Unlock()
		ts.own.cur.Store(b)
		defer ts.own.cur.Store(nil)
		return t.Execute(b, data)
	}
	c, _ := ts.clones.Get().(*clone)
	if c == nil {
		ct, err := t.Clone()
		if err != nil {
			return err
		}
		c = &clone{t: ct, st: &execState{}}
		ct.Funcs(funcsFor(c.st, true))
	}
	c.st.cur.Store(b)
	err := c.t.Execute(b, data)
	c.st.cur.Store(nil)
	ts.clones.Put(c)
	return err
}

// states maps each template ParseTemplateFor made to its state, without keeping the template alive.
var states sync.Map // weak.Pointer[template.Template] -> *templateState

func register(t *template.Template, ts *templateState) {
	k := weak.Make(t)
	states.Store(k, ts)
	goruntime.AddCleanup(t, func(k weak.Pointer[template.Template]) { states.Delete(k) }, k)
}

func stateOf(t *template.Template) *templateState {
	ts, _ := states.Load(weak.Make(t))
	s, _ := ts.(*templateState)
	return s
}

// width bounds the iterations one range action can make over v: the elements of every list and map v
// holds, and every non-negative Go integer held in an interface (a value a range could reach that is not
// read from JSON: a spec's default), counting up to limit. inAny reports that v was held in an interface.
func width(v reflect.Value, inAny bool, limit int) int {
	n := 0
	var walk func(v reflect.Value, inAny bool)
	walk = func(v reflect.Value, inAny bool) {
		if n > limit || !v.IsValid() {
			return
		}
		switch v.Kind() {
		case reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem(), true)
			}
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem(), inAny)
			}
		case reflect.Struct:
			t := v.Type()
			for i := 0; i < v.NumField(); i++ {
				if t.Field(i).IsExported() {
					walk(v.Field(i), false)
				}
			}
		case reflect.Map:
			n += v.Len()
			if scalar(v.Type().Elem()) {
				return
			}
			it := v.MapRange()
			for it.Next() && n <= limit {
				walk(it.Value(), false)
			}
		case reflect.Slice, reflect.Array:
			n += v.Len()
			if scalar(v.Type().Elem()) {
				return
			}
			for i := 0; i < v.Len() && n <= limit; i++ {
				walk(v.Index(i), false)
			}
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			if inAny && v.Int() > 0 {
				n += int(min(v.Int(), int64(limit)+1))
			}
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			if inAny {
				n += int(min(v.Uint(), uint64(limit)+1))
			}
		}
	}
	walk(v, inAny)
	return min(n, limit)
}

// scalar reports a type that holds no list, map or interface.
func scalar(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Interface, reflect.Pointer, reflect.Struct, reflect.Map, reflect.Slice, reflect.Array:
		return false
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return false // a range over a Go integer counts to it: only one held in an interface can be reached
	}
	return true
}

// printfEstimate bounds what printf writes: the format, each string argument four times over (%q, % x),
// and each verb's width.
func printfEstimate(format string, args []any) int {
	n := len(format) + 4096*strings.Count(format, "%")
	for _, a := range args {
		if s, ok := a.(string); ok {
			n += 4*len(s) + 2
		} else {
			n += 64
		}
	}
	return n
}

// budgetedBuiltins are text/template's built-ins whose work or result grows with their arguments,
// charging the budget: eq, ne, lt, le, gt and ge (one step per stepBytes of the strings they compare), and
// print, println, html, js and urlquery (their results as built values). They behave as the built-ins do.
func budgetedBuiltins(st *execState) template.FuncMap {
	// A comparison costs a step per argument, and one per stepBytes of the strings it reads.
	cost := func(a reflect.Value, args ...reflect.Value) error {
		n := 1 + len(args)
		if a = indirectInterface(a); a.Kind() == reflect.String {
			for _, b := range args {
				if b = indirectInterface(b); b.Kind() == reflect.String {
					n += min(a.Len(), b.Len()) / stepBytes
				}
			}
		}
		return st.step(n)
	}
	sprint := func(f func(...any) string, factor int) func(...any) (string, error) {
		return func(args ...any) (string, error) {
			n := 0
			for _, a := range args {
				if s, ok := a.(string); ok {
					n += factor * len(s)
				}
			}
			if err := st.reserve(n); err != nil {
				return "", err
			}
			s := f(args...)
			return s, st.build(len(s))
		}
	}
	return template.FuncMap{
		"eq": func(a reflect.Value, b ...reflect.Value) (bool, error) {
			if err := cost(a, b...); err != nil {
				return false, err
			}
			return eq(a, b...)
		},
		"ne": func(a, b reflect.Value) (bool, error) {
			if err := cost(a, b); err != nil {
				return false, err
			}
			equal, err := eq(a, b)
			return !equal, err
		},
		"lt": func(a, b reflect.Value) (bool, error) {
			if err := cost(a, b); err != nil {
				return false, err
			}
			return lt(a, b)
		},
		"le": func(a, b reflect.Value) (bool, error) {
			if err := cost(a, b); err != nil {
				return false, err
			}
			return le(a, b)
		},
		"gt": func(a, b reflect.Value) (bool, error) {
			if err := cost(a, b); err != nil {
				return false, err
			}
			lessOrEqual, err := le(a, b)
			return !lessOrEqual && err == nil, err
		},
		"ge": func(a, b reflect.Value) (bool, error) {
			if err := cost(a, b); err != nil {
				return false, err
			}
			lessThan, err := lt(a, b)
			return !lessThan && err == nil, err
		},
		"print":    sprint(fmt.Sprint, 1),
		"println":  sprint(fmt.Sprintln, 1),
		"html":     sprint(template.HTMLEscaper, 6),
		"js":       sprint(template.JSEscaper, 6),
		"urlquery": sprint(template.URLQueryEscaper, 3),
	}
}

// The comparisons below are text/template's own (its funcs.go), which a FuncMap cannot call.

var (
	errBadComparisonType = errors.New("invalid type for comparison")
	errNoComparison      = errors.New("missing argument for comparison")
)

type cmpKind int

const (
	invalidKind cmpKind = iota
	boolKind
	complexKind
	intKind
	floatKind
	stringKind
	uintKind
)

func basicKind(v reflect.Value) (cmpKind, error) {
	switch v.Kind() {
	case reflect.Bool:
		return boolKind, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return intKind, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return uintKind, nil
	case reflect.Float32, reflect.Float64:
		return floatKind, nil
	case reflect.Complex64, reflect.Complex128:
		return complexKind, nil
	case reflect.String:
		return stringKind, nil
	}
	return invalidKind, errBadComparisonType
}

func indirectInterface(v reflect.Value) reflect.Value {
	if v.Kind() != reflect.Interface {
		return v
	}
	if v.IsNil() {
		return reflect.Value{}
	}
	return v.Elem()
}

func isNil(v reflect.Value) bool {
	if !v.IsValid() {
		return true
	}
	switch v.Kind() {
	case reflect.Chan, reflect.Func, reflect.Interface, reflect.Map, reflect.Pointer, reflect.Slice:
		return v.IsNil()
	}
	return false
}

func canCompare(v1, v2 reflect.Value) bool {
	k1, k2 := v1.Kind(), v2.Kind()
	return k1 == k2 || k1 == reflect.Invalid || k2 == reflect.Invalid
}

func eq(arg1 reflect.Value, arg2 ...reflect.Value) (bool, error) {
	arg1 = indirectInterface(arg1)
	if len(arg2) == 0 {
		return false, errNoComparison
	}
	k1, _ := basicKind(arg1)
	for _, arg := range arg2 {
		arg = indirectInterface(arg)
		k2, _ := basicKind(arg)
		truth := false
		if k1 != k2 {
			switch {
			case k1 == intKind && k2 == uintKind:
				truth = arg1.Int() >= 0 && uint64(arg1.Int()) == arg.Uint()
			case k1 == uintKind && k2 == intKind:
				truth = arg.Int() >= 0 && arg1.Uint() == uint64(arg.Int())
			default:
				if arg1.IsValid() && arg.IsValid() {
					return false, fmt.Errorf("incompatible types for comparison: %v and %v", arg1.Type(), arg.Type())
				}
			}
		} else {
			switch k1 {
			case boolKind:
				truth = arg1.Bool() == arg.Bool()
			case complexKind:
				truth = arg1.Complex() == arg.Complex()
			case floatKind:
				truth = arg1.Float() == arg.Float()
			case intKind:
				truth = arg1.Int() == arg.Int()
			case stringKind:
				truth = arg1.String() == arg.String()
			case uintKind:
				truth = arg1.Uint() == arg.Uint()
			default:
				if !canCompare(arg1, arg) {
					return false, fmt.Errorf("non-comparable types %s: %v, %s: %v", arg1, arg1.Type(), arg.Type(), arg)
				}
				if isNil(arg1) || isNil(arg) {
					truth = isNil(arg) == isNil(arg1)
				} else {
					if !arg.Type().Comparable() {
						return false, fmt.Errorf("non-comparable type %s: %v", arg, arg.Type())
					}
					truth = arg1.Interface() == arg.Interface()
				}
			}
		}
		if truth {
			return true, nil
		}
	}
	return false, nil
}

func lt(arg1, arg2 reflect.Value) (bool, error) {
	arg1 = indirectInterface(arg1)
	k1, err := basicKind(arg1)
	if err != nil {
		return false, err
	}
	arg2 = indirectInterface(arg2)
	k2, err := basicKind(arg2)
	if err != nil {
		return false, err
	}
	truth := false
	if k1 != k2 {
		switch {
		case k1 == intKind && k2 == uintKind:
			truth = arg1.Int() < 0 || uint64(arg1.Int()) < arg2.Uint()
		case k1 == uintKind && k2 == intKind:
			truth = arg2.Int() >= 0 && arg1.Uint() < uint64(arg2.Int())
		default:
			return false, fmt.Errorf("incompatible types for comparison: %v and %v", arg1.Type(), arg2.Type())
		}
	} else {
		switch k1 {
		case boolKind, complexKind:
			return false, errBadComparisonType
		case floatKind:
			truth = arg1.Float() < arg2.Float()
		case intKind:
			truth = arg1.Int() < arg2.Int()
		case stringKind:
			truth = arg1.String() < arg2.String()
		case uintKind:
			truth = arg1.Uint() < arg2.Uint()
		}
	}
	return truth, nil
}

func le(arg1, arg2 reflect.Value) (bool, error) {
	lessThan, err := lt(arg1, arg2)
	if lessThan || err != nil {
		return lessThan, err
	}
	return eq(arg1, arg2)
}
