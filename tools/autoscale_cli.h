/* SPDX-License-Identifier: MIT */
/*
 * autoscale_cli.h - the command line.  parse_args() exits on --help,
 * --version, --check-config and a usage error.
 */
#ifndef SMPALT_AUTOSCALE_CLI_H
#define SMPALT_AUTOSCALE_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "autoscaler.h"

/* The built-in settings the configuration file goes over. */
extern const struct as_settings conf_base;

/* The options into as->opt and as->conf_cli; exits on a usage error
 * (EXIT_USAGE) and after --help, --version and --check-config. */
void parse_args(struct autoscaler *as, int argc, char **argv);

#endif /* SMPALT_AUTOSCALE_CLI_H */
