//go:build !linux

package offheap

import "errors"

// Populate does nothing where the kernel has no call for it: the pages
// fault as they are touched.
func Populate[T any](s []T) {}

func populate[T any]([]T) error { return errors.ErrUnsupported }
