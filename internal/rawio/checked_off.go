//go:build linux && !(race || msan || asan)

package rawio

const checked = false
