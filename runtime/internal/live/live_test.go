package live

import (
	"errors"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// fake is a process that runs until it is killed.
type fake struct {
	pid  int
	once sync.Once
	done chan struct{}
}

func newFake(pid int) *fake { return &fake{pid: pid, done: make(chan struct{})} }

func (f *fake) Pid() int              { return f.pid }
func (f *fake) Kill()                 { f.once.Do(func() { close(f.done) }) }
func (f *fake) Done() <-chan struct{} { return f.done }

func (f *fake) killed() bool {
	select {
	case <-f.done:
		return true
	default:
		return false
	}
}

type item struct {
	Entry
	name string
}

// start reserves a slot and adds a running process named name.
func start(t *testing.T, r *Registry[*item], name string, pid int, at time.Time) (*item, *fake, error) {
	t.Helper()
	if err := r.Reserve(); err != nil {
		return nil, nil, err
	}
	it, p := &item{name: name}, newFake(pid)
	if err := r.Add(it, p, at, nil); err != nil {
		return nil, nil, err
	}
	return it, p, nil
}

func ids(r *Registry[*item]) []string {
	var out []string
	for _, it := range r.All() {
		out = append(out, it.ID())
	}
	return out
}

// TestLimits: the two ways of counting toward Max, refusal, and least-recently-used pruning with its
// protections, as data.
func TestLimits(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for _, tc := range []struct {
		name string
		pol  Policy
		// finish kills these (by index) and waits before the last start.
		finish []int
		// use Gets these (by index) before the last start, most recent last.
		use []int
		// want: the error of a third start, and which of the first two was pruned (killed), or -1.
		wantErr    error
		wantPruned int
	}{
		{"running count refuses", Policy{Max: 2, Count: CountRunning, IDs: Sequential, FirstID: 1, WrapID: 99}, nil, nil, ErrFull, -1},
		{"a finished entry frees its slot", Policy{Max: 2, Count: CountRunning, IDs: Sequential, FirstID: 1, WrapID: 99}, []int{0}, nil, nil, -1},
		{"held count keeps a finished entry's slot", Policy{Max: 2, Count: CountHeld, IDs: Sequential, FirstID: 1, WrapID: 99}, []int{0}, nil, ErrFull, -1},
		{"prune the least recently used", Policy{Max: 2, Count: CountHeld, OnFull: PruneLRU, IDs: Sequential, FirstID: 1, WrapID: 99}, nil, []int{0}, nil, 1},
		{"prune by use, not by age", Policy{Max: 2, Count: CountHeld, OnFull: PruneLRU, IDs: Sequential, FirstID: 1, WrapID: 99}, nil, []int{1, 0}, nil, 1},
		{"protect the most recent", Policy{Max: 2, Count: CountHeld, OnFull: PruneLRU, ProtectRecent: 1, IDs: Sequential, FirstID: 1, WrapID: 99}, nil, []int{1}, nil, 0},
		{"every entry protected", Policy{Max: 2, Count: CountHeld, OnFull: PruneLRU, ProtectRecent: 2, IDs: Sequential, FirstID: 1, WrapID: 99}, nil, nil, ErrFull, -1},
		{"a finished one first", Policy{Max: 2, Count: CountHeld, OnFull: PruneLRU, PruneFinishedFirst: true, IDs: Sequential, FirstID: 1, WrapID: 99}, []int{1}, []int{0, 1}, nil, 1},
		{"the least recently used without finished first", Policy{Max: 2, Count: CountHeld, OnFull: PruneLRU, IDs: Sequential, FirstID: 1, WrapID: 99}, []int{1}, []int{1, 0}, nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New[*item](tc.pol)
			defer r.Close()
			var items []*item
			var procs []*fake
			for i := range 2 {
				it, p, err := start(t, r, "x", 0, t0.Add(time.Duration(i)*time.Second))
				if err != nil {
					t.Fatal(err)
				}
				items, procs = append(items, it), append(procs, p)
			}
			for _, i := range tc.finish {
				procs[i].Kill()
				<-items[i].Done()
			}
			for _, i := range tc.use {
				if _, ok := r.Get(items[i].ID()); !ok {
					t.Fatalf("Get(%s): not held", items[i].ID())
				}
			}
			_, _, err := start(t, r, "third", 0, t0.Add(time.Hour))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("third start: %v, want %v", err, tc.wantErr)
			}
			for i, p := range procs {
				pruned := i == tc.wantPruned
				if _, held := r.Get(items[i].ID()); pruned && (held || !p.killed()) {
					t.Errorf("entry %d: held %v, killed %v; want pruned", i, held, p.killed())
				} else if !pruned && !slices.Contains(tc.finish, i) && p.killed() {
					t.Errorf("entry %d was killed", i)
				}
			}
		})
	}
}

// TestRetain: with Retain, the finished entries beyond it are forgotten, oldest first; a running one never.
func TestRetain(t *testing.T) {
	r := New[*item](Policy{Max: 10, Count: CountRunning, Retain: 2, IDs: Sequential, FirstID: 1, WrapID: 99})
	defer r.Close()
	var procs []*fake
	for i := range 4 {
		_, p, err := start(t, r, "x", 0, time.Unix(int64(i), 0))
		if err != nil {
			t.Fatal(err)
		}
		procs = append(procs, p)
	}
	for _, i := range []int{0, 1, 2} {
		it, _ := r.Get(strconv.Itoa(i + 1))
		procs[i].Kill()
		<-it.Done()
	}
	// Done closes once the registry has retained the entry, or forgotten the oldest.
	if got := ids(r); !slices.Equal(got, []string{"2", "3", "4"}) {
		t.Fatalf("held %v, want the two most recent finished and the running one", got)
	}
	held, running := r.Held()
	slices.Sort(held)
	if !slices.Equal(held, []string{"2", "3", "4"}) || running != 1 {
		t.Errorf("Held: %v, %d running", held, running)
	}
}

// TestIDs: each naming scheme, and a sequential id given back.
func TestIDs(t *testing.T) {
	for _, tc := range []struct {
		name string
		pol  Policy
		pids []int
		want func(i int, id string) bool
	}{
		{"pid", Policy{IDs: PID}, []int{42, 43}, func(i int, id string) bool { return id == strconv.Itoa(42+i) }},
		{"pid without one", Policy{IDs: PID}, []int{0}, func(_ int, id string) bool { return len(id) == 36 }},
		{"uuid", Policy{IDs: UUID}, []int{7}, func(_ int, id string) bool { return len(id) == 36 }},
		{"sequential wraps", Policy{IDs: Sequential, FirstID: 5, WrapID: 6}, []int{1, 2}, func(i int, id string) bool { return id == strconv.Itoa(5+i) }},
		{"random in range", Policy{IDs: Random, FirstID: 10, LastID: 12}, []int{1, 2, 3}, func(_ int, id string) bool {
			n, err := strconv.Atoi(id)
			return err == nil && n >= 10 && n <= 12
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.pol.Max = 10
			r := New[*item](tc.pol)
			defer r.Close()
			seen := map[string]bool{}
			for i, pid := range tc.pids {
				it, _, err := start(t, r, "x", pid, time.Unix(int64(i), 0))
				if err != nil {
					t.Fatal(err)
				}
				if !tc.want(i, it.ID()) || seen[it.ID()] {
					t.Errorf("entry %d: id %q", i, it.ID())
				}
				seen[it.ID()] = true
			}
		})
	}

	// Sequential: a wrapped counter skips the ids in use; an id given back is given again.
	r := New[*item](Policy{Max: 10, Count: CountHeld, IDs: Sequential, FirstID: 1, WrapID: 3})
	defer r.Close()
	var items []*item
	for i := range 3 {
		it, _, err := start(t, r, "x", 0, time.Unix(int64(i), 0))
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, it)
	}
	// An entry is forgotten once its process has ended (Close ends only the entries held).
	items[1].Kill()
	<-items[1].Done()
	r.Forget(items[1])
	it, _, err := start(t, r, "x", 0, time.Unix(9, 0))
	if err != nil || it.ID() != "2" {
		t.Fatalf("after a wrap: %v, %v; want id 2", it, err)
	}
	it.Kill()
	<-it.Done()
	r.GiveBack(it)
	again, _, err := start(t, r, "x", 0, time.Unix(10, 0))
	if err != nil || again.ID() != "2" {
		t.Errorf("after GiveBack: %v, %v; want id 2 again", again, err)
	}
}

// TestClose: Close kills every process and waits for each; a closed registry holds nothing and refuses
// starts, and a start already reserved is refused at Add.
func TestClose(t *testing.T) {
	r := New[*item](Policy{Max: 10, Count: CountRunning, Retain: 5, IDs: UUID})
	var procs []*fake
	var items []*item
	for i := range 3 {
		it, p, err := start(t, r, "x", 0, time.Unix(int64(i), 0))
		if err != nil {
			t.Fatal(err)
		}
		procs, items = append(procs, p), append(items, it)
	}
	if err := r.Reserve(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	for i, p := range procs {
		if !p.killed() || !items[i].Finished() {
			t.Errorf("process %d: killed %v, finished %v after Close", i, p.killed(), items[i].Finished())
		}
	}
	if held, running := r.Held(); len(held) != 0 || running != 0 {
		t.Errorf("after Close: held %v, %d running", held, running)
	}
	if err := r.Add(&item{}, newFake(1), time.Now(), nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Add of a reserved start after Close: %v", err)
	}
	if err := r.Reserve(); !errors.Is(err, ErrClosed) {
		t.Errorf("Reserve after Close: %v", err)
	}
}

// TestFinish: finish runs after the process is reaped and before Done closes.
func TestFinish(t *testing.T) {
	r := New[*item](Policy{Max: 1, Count: CountRunning, IDs: UUID})
	defer r.Close()
	if err := r.Reserve(); err != nil {
		t.Fatal(err)
	}
	finished := make(chan struct{})
	it, p := &item{}, newFake(1)
	if err := r.Add(it, p, time.Now(), func() { close(finished) }); err != nil {
		t.Fatal(err)
	}
	if it.Finished() {
		t.Fatal("finished before its process ended")
	}
	p.Kill()
	<-it.Done()
	select {
	case <-finished:
	default:
		t.Error("Done closed before finish ran")
	}
}
