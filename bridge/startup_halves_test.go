package bridge

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// TestInHalvesJoins: inHalves returns only once the second half ended, also when the
// first panics (its caller releases what the second half reads as soon as it returns),
// and a panic of either half is raised.
func TestInHalvesJoins(t *testing.T) {
	t.Run("the first panics", func(t *testing.T) {
		var returned atomic.Bool
		panicking, secondDone := make(chan struct{}), make(chan struct{})
		sawReturn := false
		func() {
			defer func() {
				if recover() == nil {
					t.Error("the first half's panic was not raised")
				}
				returned.Store(true)
			}()
			inHalves(func() {
				close(panicking)
				panic("first")
			}, func() {
				defer close(secondDone)
				<-panicking
				// Left unjoined, the panic leaves inHalves while this runs: give it the
				// time to.
				for range 10000 {
					if returned.Load() {
						sawReturn = true
						return
					}
					runtime.Gosched()
				}
			})
		}()
		<-secondDone
		if sawReturn {
			t.Fatal("inHalves returned while the second half still ran")
		}
	})
	t.Run("the second panics", func(t *testing.T) {
		defer func() {
			if recover() != "second" {
				t.Error("the second half's panic was not raised")
			}
		}()
		inHalves(func() {}, func() { panic("second") })
	})
}
