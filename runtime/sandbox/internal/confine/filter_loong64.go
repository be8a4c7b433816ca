//go:build linux

package confine

const auditArch = 0xc0000102 // AUDIT_ARCH_LOONGARCH64
