/* SPDX-License-Identifier: MIT */
/*
 * string.h - the freestanding guest's own string and memory helpers
 * (lib/string.c).  The compiler may also emit calls to memcpy, memset,
 * memmove and memcmp by itself.
 */
#ifndef SMPALT_STRING_H
#define SMPALT_STRING_H

#include <stddef.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
/* Copies at most size-1 bytes and always terminates; returns strlen(src). */
size_t strlcpy(char *dst, const char *src, size_t size);
/* Base 0 accepts 0x (hex) and leading 0 (octal) like the C library. */
unsigned long strtoul(const char *s, char **end, int base);
long strtol(const char *s, char **end, int base);

#endif /* SMPALT_STRING_H */
