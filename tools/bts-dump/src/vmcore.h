/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bts-dump (decoder layer): the kept fault capture in a kdump crash dump
 * (/proc/vmcore copied by cp, makedumpfile -E): an ELF64 core whose
 * VMCOREINFO note says "BTS_TABLE=<hex physical address>" of a struct
 * bts_vmcore_table (include/uapi/linux/bts.h). Each written slot becomes
 * one dump, as the CPU's capture file would have given it.
 */
#ifndef BTS_DUMP_VMCORE_H
#define BTS_DUMP_VMCORE_H

#include "dump.h"

/*
 * Read the crash dump @path (open as @fd, or -1 to open it) and append one
 * dump per written slot to @list. Every error is one line naming @path.
 * Return: 0, or -1 (the slots read before the error stay in @list).
 */
int vmcore_load(const char *path, int fd, struct dump_list *list);

#endif /* BTS_DUMP_VMCORE_H */
