package ir

import (
	"fmt"
	"strconv"
	"strings"
)

// Device is where a tensor lives: cpu, cuda:N, meta, or another backend
// (npu:0 appears in the corpus). The zero value means "unknown".
type Device struct {
	Type  string // "cpu", "cuda", "meta", "npu", ...
	Index int    // -1 when the device has no index
}

// Common devices.
var (
	CPU  = Device{Type: "cpu", Index: -1}
	Meta = Device{Type: "meta", Index: -1}
)

// CUDA returns cuda:index.
func CUDA(index int) Device { return Device{Type: "cuda", Index: index} }

// Known reports whether the device was given.
func (d Device) Known() bool { return d.Type != "" }

// IsMeta reports whether d is the meta device (shapes, no data).
func (d Device) IsMeta() bool { return d.Type == "meta" }

// IsCPU reports whether d is the host.
func (d Device) IsCPU() bool { return d.Type == "cpu" }

// String is the annotation spelling: "cpu", "cuda:0", "meta".
func (d Device) String() string {
	if !d.Known() {
		return ""
	}
	if d.Index < 0 {
		return d.Type
	}
	return d.Type + ":" + strconv.Itoa(d.Index)
}

// PyRepr is the Python spelling used in FX arguments:
// device(type='cuda', index=0) or device(type='cpu').
func (d Device) PyRepr() string {
	if d.Index < 0 {
		return fmt.Sprintf("device(type='%s')", d.Type)
	}
	return fmt.Sprintf("device(type='%s', index=%d)", d.Type, d.Index)
}

// ParseDevice reads "cpu", "cuda", "cuda:1", "meta".
func ParseDevice(s string) (Device, error) {
	typ, idx, hasIdx := strings.Cut(s, ":")
	if typ == "" || !isIdent(typ) {
		return Device{}, fmt.Errorf("invalid device %q", s)
	}
	if !knownDeviceTypes[typ] {
		return Device{}, fmt.Errorf("Expected one of %s device type at start of device string: %s", deviceTypeList, typ)
	}
	d := Device{Type: typ, Index: -1}
	if hasIdx {
		n, err := strconv.Atoi(idx)
		if err != nil || n < 0 {
			return Device{}, fmt.Errorf("invalid device index in %q", s)
		}
		d.Index = n
	}
	return d, nil
}

// deviceTypeList is the list torch.device checks a device string against
// (PyTorch 2.15, c10/core/Device.cpp), in its order, for its error message.
const deviceTypeList = "cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone"

// knownDeviceTypes is that list, plus npu: Ascend's torch_npu renames the
// privateuseone backend to "npu", and real graphs in the corpus use it.
var knownDeviceTypes = func() map[string]bool {
	m := map[string]bool{"npu": true}
	for _, t := range strings.Split(deviceTypeList, ", ") {
		m[t] = true
	}
	return m
}()

func isIdent(s string) bool {
	for i, r := range s {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9' {
			continue
		}
		return false
	}
	return s != ""
}
