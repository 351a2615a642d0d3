package safefile

import "testing"

// TestReadBeneathFastPath: openat2 reads a file or finds it missing
// itself, and leaves a symlink out, a FIFO and a folder to os.Root.
func TestReadBeneathFastPath(t *testing.T) {
	d, _, _ := openHostile(t)
	for name, handled := range map[string]bool{
		"a.txt": true, "in": true, "sub/up-in": true, "missing": true, "sub/missing/x": true,
		"out": false, "abs-out": false, "dir-out/secret.txt": false, "fifo": false, "sub": false,
	} {
		if _, _, ok, _ := d.readBeneath(nil, name, name, 100); ok != handled {
			t.Errorf("readBeneath(%q) handled = %v, want %v", name, ok, handled)
		}
	}
}
