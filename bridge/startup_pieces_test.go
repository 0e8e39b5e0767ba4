package bridge

import (
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
)

// TestInPiecesJoins: inPieces delivers every piece in order once its build ended, and
// returns only once every build ended, also when a build or a delivery panics (its caller
// releases what the builds read as soon as it returns); a panic is raised, no piece
// after a panicking build is delivered, and a build waiting on its stop is let go.
func TestInPiecesJoins(t *testing.T) {
	t.Run("in order", func(t *testing.T) {
		const n = 16
		var built [n]atomic.Bool
		var delivered []int
		inPieces(n, 3, func(k int, _ <-chan struct{}) { built[k].Store(true) }, func(k int) {
			if !built[k].Load() {
				t.Errorf("piece %d delivered before it was built", k)
			}
			delivered = append(delivered, k)
		})
		if want := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}; !slices.Equal(delivered, want) {
			t.Errorf("delivered %v, want %v", delivered, want)
		}
	})
	t.Run("a build panics while another runs", func(t *testing.T) {
		var returned atomic.Bool
		started, panicking, otherDone := make(chan struct{}), make(chan struct{}), make(chan struct{})
		sawReturn := false
		func() {
			defer func() {
				if recover() != "first" {
					t.Error("the build's panic was not raised")
				}
				returned.Store(true)
			}()
			inPieces(2, 2, func(k int, _ <-chan struct{}) {
				if k == 0 {
					<-started // each of the two workers holds one piece
					close(panicking)
					panic("first")
				}
				close(started)
				defer close(otherDone)
				<-panicking
				// Left unjoined, the panic leaves inPieces while this runs: give it
				// the time to.
				for range 10000 {
					if returned.Load() {
						sawReturn = true
						return
					}
					runtime.Gosched()
				}
			}, func(int) {})
		}()
		<-otherDone
		if sawReturn {
			t.Fatal("inPieces returned while a build still ran")
		}
	})
	t.Run("nothing after a panicking build is delivered", func(t *testing.T) {
		var delivered []int
		func() {
			defer func() {
				if recover() != "third" {
					t.Error("the build's panic was not raised")
				}
			}()
			inPieces(6, 1, func(k int, _ <-chan struct{}) {
				if k == 3 {
					panic("third")
				}
			}, func(k int) { delivered = append(delivered, k) })
		}()
		// The pieces before it may go out or not, depending on when the caller looks.
		if len(delivered) > 3 || !slices.Equal(delivered, []int{0, 1, 2}[:len(delivered)]) {
			t.Errorf("delivered %v, want a start of [0 1 2]", delivered)
		}
	})
	t.Run("a build waits on stop while another panics", func(t *testing.T) {
		// As Registrations.Piece waits for a piece before it that a panic leaves
		// undelivered: only stop ends the wait, and inPieces must not wait for it.
		waiting := make(chan struct{})
		func() {
			defer func() {
				if recover() != "zeroth" {
					t.Error("the build's panic was not raised")
				}
			}()
			inPieces(2, 2, func(k int, stop <-chan struct{}) {
				if k == 0 {
					<-waiting
					panic("zeroth")
				}
				close(waiting)
				<-stop
			}, func(int) {})
		}()
	})
	t.Run("a delivery panics", func(t *testing.T) {
		var running, ran atomic.Int64
		func() {
			defer func() {
				if recover() != "deliver" {
					t.Error("the delivery's panic was not raised")
				}
				if running.Load() != 0 {
					t.Error("inPieces returned while a build still ran")
				}
			}()
			inPieces(8, 2, func(int, <-chan struct{}) {
				running.Add(1)
				defer running.Add(-1)
				ran.Add(1)
				for range 100 {
					runtime.Gosched()
				}
			}, func(k int) {
				if k == 1 {
					panic("deliver")
				}
			})
		}()
		if ran.Load() < 2 {
			t.Errorf("%d builds ran, want at least the two delivered or delivering", ran.Load())
		}
	})
}
