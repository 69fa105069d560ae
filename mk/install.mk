# Install on a Xen dom0 (Debian 12). Included by the top-level Makefile
# after mk/guest.mk (GUEST_ELF) and mk/tools.mk (AUTOSCALER).
#
#   make install [PREFIX=/usr/local] [DESTDIR=]   the autoscaler, the guest
#                       kernel, an xl config for it, the man page, the
#                       systemd unit, its /etc/default file and
#                       /etc/smpalt/autoscaler.conf, the docs
#   make uninstall      remove exactly what install put there (the list is
#                       $(PKGDATADIR)/install-manifest); same PREFIX, DESTDIR;
#                       configuration files edited since are kept
#   make uninstall PURGE=1   the edited configuration files too
#   make deb            the Debian packages (debian/), built from a copy of
#                       the tree: out/deb/smpalt-{autoscaler,guest}_*.deb
#   make test-deb       build them and check them
# Details: docs/real-host.md. The work is done by scripts/build/install.sh.
# The Debian packages (debian/) are built from the same `make install`.

PREFIX         ?= /usr/local
SBINDIR        ?= $(PREFIX)/sbin
DATADIR        ?= $(PREFIX)/share
MANDIR         ?= $(DATADIR)/man
DOCDIR         ?= $(DATADIR)/doc/smpalt
PKGDATADIR     ?= $(DATADIR)/smpalt
# PV guest kernels have no fixed home on Debian: xen-utils-4.17 keeps its
# own firmware in the versioned /usr/lib/xen-4.17/boot (replaced on a Xen
# upgrade), and /var/lib/xen holds the toolstack's run-time state. The
# upstream Xen name for boot images, lib/xen/boot, under PREFIX stays put
# across Xen upgrades and belongs to no package.
XENBOOTDIR     ?= $(PREFIX)/lib/xen/boot
# Configuration lives in /etc whatever the prefix: that is where xl's
# domain configs (/etc/xen) and systemd's EnvironmentFile (/etc/default)
# are looked for on Debian.
SYSCONFDIR     ?= /etc
XLCONFDIR      ?= $(SYSCONFDIR)/xen
# systemd reads units from /usr/local/lib/systemd/system as well as from
# /usr/lib/systemd/system.
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
DESTDIR        ?=

# What is installed: by default the build of $(CC); the harness passes the
# files it was given.
INSTALL_GUEST      ?= $(GUEST_ELF)
INSTALL_AUTOSCALER ?= $(AUTOSCALER)

INSTALL_ENV = DESTDIR='$(DESTDIR)' PREFIX='$(PREFIX)' SBINDIR='$(SBINDIR)' \
	XENBOOTDIR='$(XENBOOTDIR)' XLCONFDIR='$(XLCONFDIR)' \
	SYSCONFDIR='$(SYSCONFDIR)' MANDIR='$(MANDIR)' \
	SYSTEMDUNITDIR='$(SYSTEMDUNITDIR)' DOCDIR='$(DOCDIR)' \
	PKGDATADIR='$(PKGDATADIR)'

.PHONY: install uninstall test-install

install: $(INSTALL_GUEST) $(INSTALL_AUTOSCALER)
	@$(INSTALL_ENV) GUEST_ELF='$(INSTALL_GUEST)' \
		AUTOSCALER='$(INSTALL_AUTOSCALER)' \
		bash $(TOP)/scripts/build/install.sh install

PURGE ?=
uninstall:
	@$(INSTALL_ENV) PURGE='$(PURGE)' bash $(TOP)/scripts/build/install.sh uninstall

# install into a temporary DESTDIR, check the tree, uninstall
# (tests/install/check-install.sh); the last line is "N passed, N failed"
test-install: $(GUEST_ELF) $(AUTOSCALER)
	@bash $(TOP)/tests/install/check-install.sh

# The Debian packages (debian/): built from a copy of the tree in out/deb/
# with dpkg-buildpackage, then lintian, hardening-check, their contents,
# the unit's verify and security exposure (tests/install/check-deb.sh);
# the last line is "N passed, N failed"
.PHONY: deb test-deb
test-deb:
	@bash $(TOP)/tests/install/check-deb.sh

# The packages alone (scripts/build/build-deb.sh): out/deb/*.deb
deb:
	@bash $(TOP)/scripts/build/build-deb.sh
