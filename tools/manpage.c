/* SPDX-License-Identifier: MIT */
/*
 * Manual pages made from the --help texts, so that the two always say the
 * same: `nandkit --man-dir DIR` writes nandkit.1 and nandkit-COMMAND.1 for
 * every subcommand (the build runs it; see tools/CMakeLists.txt).
 *
 * The help texts follow one shape, which the conversion relies on: "usage:"
 * lines first, then paragraphs, then "Heading:" lines followed by indented
 * entries ("  -x, --long ARG   what it does", continuation lines indented
 * further).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nandkit/version.h"
#include "tool.h"

/* Writes `text` escaped for roff: backslashes, hyphens as \-, and a leading
 * dot or quote guarded. */
static void tool_man_escape(FILE *out, const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (i == 0 && (c == '.' || c == '\''))
            fputs("\\&", out);
        if (c == '\\')
            fputs("\\e", out);
        else if (c == '-')
            fputs("\\-", out);
        else
            fputc(c, out);
    }
}

static size_t tool_man_indent(const char *line)
{
    size_t n = 0;
    while (line[n] == ' ')
        n++;
    return n;
}

/* An entry line: two spaces and a term (or up to six spaces and an option,
 * as in "      --long"), then two or more spaces and its description.
 * Returns the term's length (0 when the line is not one); *start gets where
 * the term begins. */
static size_t tool_man_term(const char *line, size_t len, size_t *start)
{
    size_t indent = tool_man_indent(line);
    if (indent >= len || indent < 2 || (indent > 2 && (indent > 6 || line[indent] != '-')))
        return 0;
    *start = indent;
    for (size_t i = indent; i + 1 < len; i++)
        if (line[i] == ' ' && line[i + 1] == ' ')
            return i - indent;
    return len - indent;
}

/* Where the conversion of a help text is. */
struct tool_man_state {
    enum { TOOL_MAN_START, TOOL_MAN_USAGE, TOOL_MAN_TEXT, TOOL_MAN_LIST } part;
    bool in_entry, in_verbatim, prev_blank;
};

/* A line of the usage block, as a line of the SYNOPSIS. */
static void tool_man_usage_line(FILE *out, const char *line, size_t len)
{
    const char *text = line;
    size_t n = len;
    if (strncmp(text, "usage: ", 7) == 0) {
        text += 7;
        n -= 7;
    } else {
        while (n && *text == ' ') {
            text++;
            n--;
        }
        fputs("    ", out);
    }
    tool_man_escape(out, text, n);
    fputc('\n', out);
}

/* "Options:" as OPTIONS; any other heading ("Bad blocks (--bb):",
 * "Commands:") as a subsection. */
static void tool_man_heading(FILE *out, struct tool_man_state *s, const char *line, size_t len)
{
    if (s->in_verbatim)
        fputs(".fi\n", out);
    s->in_verbatim = false;
    if (strncmp(line, "Options:", 8) == 0) {
        fputs(".SH OPTIONS\n", out);
    } else {
        fputs(".SS ", out);
        tool_man_escape(out, line, len - 1);
        fputc('\n', out);
    }
    s->part = TOOL_MAN_LIST;
    s->in_entry = false;
}

/* An entry of a list: its term in bold, then what follows it. */
static void tool_man_entry(FILE *out, const char *line, size_t len, size_t term_start, size_t term)
{
    const char *desc = line + term_start + term;
    size_t desc_len = len - term_start - term;
    while (desc_len && *desc == ' ') {
        desc++;
        desc_len--;
    }
    fputs(".TP\n.B ", out);
    tool_man_escape(out, line + term_start, term);
    fputc('\n', out);
    if (desc_len) {
        tool_man_escape(out, desc, desc_len);
        fputc('\n', out);
    }
}

/* A line of prose: an indented one as is, in a verbatim block. */
static void tool_man_prose(FILE *out, struct tool_man_state *s, const char *line, size_t len,
                           size_t indent)
{
    if (indent >= 2) {
        /* An indented block in the prose (a list, an example): as is. */
        if (!s->in_verbatim)
            fputs(".nf\n", out);
        s->in_verbatim = true;
        tool_man_escape(out, line, len);
        fputc('\n', out);
        return;
    }
    if (s->in_verbatim) {
        fputs(".fi\n", out);
        s->in_verbatim = false;
    }
    if (s->part == TOOL_MAN_LIST) { /* prose after a list: a paragraph of its own */
        fputs(".PP\n", out);
        s->part = TOOL_MAN_TEXT;
    }
    tool_man_escape(out, line, len);
    fputc('\n', out);
}

/* Converts one line of a help text. */
static void tool_man_line(FILE *out, struct tool_man_state *s, const char *line, size_t len)
{
    bool blank = len == 0;
    size_t indent = tool_man_indent(line);
    bool after_blank = s->prev_blank;
    s->prev_blank = blank;
    if (s->part == TOOL_MAN_START || (s->part == TOOL_MAN_USAGE && !blank)) {
        if (s->part == TOOL_MAN_START) {
            fputs(".SH SYNOPSIS\n.nf\n", out);
            s->part = TOOL_MAN_USAGE;
        }
        tool_man_usage_line(out, line, len);
        return;
    }
    if (s->part == TOOL_MAN_USAGE && blank) {
        fputs(".fi\n.SH DESCRIPTION\n", out);
        s->part = TOOL_MAN_TEXT;
        return;
    }
    if (blank) {
        if (s->in_verbatim)
            fputs(".fi\n", out);
        s->in_verbatim = false;
        s->in_entry = false;
        if (s->part == TOOL_MAN_TEXT)
            fputs(".PP\n", out);
        return;
    }
    if (indent == 0 && line[len - 1] == ':' && after_blank && len < 40) {
        tool_man_heading(out, s, line, len);
        return;
    }
    size_t term_start = 2;
    size_t term = tool_man_term(line, len, &term_start);
    if (s->part == TOOL_MAN_LIST && term) {
        tool_man_entry(out, line, len, term_start, term);
        s->in_entry = true;
        return;
    }
    if (s->part == TOOL_MAN_LIST && s->in_entry && indent > 2) {
        tool_man_escape(out, line + indent, len - indent);
        fputc('\n', out);
        return;
    }
    tool_man_prose(out, s, line, len, indent);
}

/* Converts one help text. */
static void tool_man_body(FILE *out, const char *help)
{
    struct tool_man_state s = {TOOL_MAN_START, false, false, false};
    const char *p = help;
    while (*p) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *line = p;
        p = end ? end + 1 : p + len;
        tool_man_line(out, &s, line, len);
    }
    if (s.in_verbatim)
        fputs(".fi\n", out);
}

static int tool_man_write(const char *dir, const char *page, const char *summary, const char *help,
                          const char *see_also)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.1", dir, page);
    FILE *out = fopen(path, "w");
    if (!out)
        return tool_error("cannot write '%s': %s", path, strerror(errno));
    char upper[64];
    size_t i;
    for (i = 0; page[i] && i + 1 < sizeof upper; i++)
        upper[i] = (char)toupper((unsigned char)page[i]);
    upper[i] = 0;
    fprintf(out, ".TH %s 1 \"\" \"nandkit %s\" \"nandkit manual\"\n.SH NAME\n", upper,
            NANDKIT_VERSION);
    tool_man_escape(out, page, strlen(page));
    fputs(" \\- ", out);
    tool_man_escape(out, summary, strlen(summary));
    fputc('\n', out);
    tool_man_body(out, help);
    fputs(".SH EXIT STATUS\nThe same for every command:\n"
          ".TP\n.B 0\ndone\n"
          ".TP\n.B 1\nfailed: an I/O error, uncorrectable data, damage found, no space, a "
          "simulated power cut\n"
          ".TP\n.B 2\nbad input: a bad option or value, an option the command does not take, a "
          "path of the wrong kind; one line names it and nothing is written\n"
          ".TP\n.B 3\nfsck only: no damage, traces of a write cut by power loss\n"
          ".TP\n.B 4\nnot found: the image, a path in it, or a host file does not exist\n"
          ".TP\n.B 5\nthe image is in use by another nandkit command (give \\-\\-wait to wait)\n"
          ".SH FILES\nIMAGE.nksim, the simulator's sidecar beside an image file; "
          "IMAGE.nktmp\\-XXXXXX, the temporary copy a writing command works in (one a killed "
          "command left is removed by the next). A command that writes an image holds an exclusive "
          "flock(2) on it while it runs, one that reads a shared one.\n.SH SEE ALSO\n",
          out);
    tool_man_escape(out, see_also, strlen(see_also));
    fputc('\n', out);
    if (fclose(out) != 0)
        return tool_error("cannot write '%s': %s", path, strerror(errno));
    return 0;
}

int tool_write_man_pages(const char *dir, const struct tool_command *const *commands, size_t count,
                         void (*usage)(FILE *out))
{
    char *text = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&text, &size);
    if (!mem)
        return tool_error("out of memory");
    usage(mem);
    fclose(mem);
    size_t see_len = 1;
    for (size_t i = 0; i < count; i++)
        see_len += strlen(commands[i]->name) + 16;
    char *see_all = malloc(see_len);
    see_all[0] = 0;
    for (size_t i = 0; i < count; i++) {
        strcat(see_all, i ? ", nandkit-" : "nandkit-");
        strcat(see_all, commands[i]->name);
        strcat(see_all, "(1)");
    }
    int status = tool_man_write(dir, "nandkit", "NAND flash tools", text, see_all);
    free(text);
    for (size_t i = 0; !status && i < count; i++) {
        text = NULL;
        size = 0;
        mem = open_memstream(&text, &size);
        if (!mem) {
            status = tool_error("out of memory");
            break;
        }
        commands[i]->help(mem);
        fclose(mem);
        char page[64];
        snprintf(page, sizeof page, "nandkit-%s", commands[i]->name);
        status = tool_man_write(dir, page, commands[i]->summary, text, "nandkit(1)");
        free(text);
    }
    free(see_all);
    return status;
}
