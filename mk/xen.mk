# The Xen-in-QEMU harness (owned by the harness work).
