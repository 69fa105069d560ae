# The PV guest kernel (owned by the guest work).
