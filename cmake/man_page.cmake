# Writes the sbufsim(1) man page from the program's own help: `sbufsim --help` for the
# description and the command list, then `sbufsim <command> --help` for every command it lists,
# so the page says exactly what the binary says.
#
#   cmake -DSBUFSIM=<binary> -DVERSION=<x.y.z> -DOUTPUT=<sbufsim.1> -P cmake/man_page.cmake

function(help out)
  execute_process(COMMAND "${SBUFSIM}" ${ARGN} --help OUTPUT_VARIABLE text RESULT_VARIABLE rc
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "man page: `sbufsim ${ARGN} --help` failed (${rc}): ${err}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Help text as a no-fill roff block: backslashes escaped, lines that roff would take as requests
# (leading '.' or ') protected.
function(roff_block out text)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  string(REGEX REPLACE "\n+$" "" text "${text}")
  set(${out} ".nf\n${text}\n.fi\n" PARENT_SCOPE)
endfunction()

help(top)
# "sbufsim 0.1.0 - what it is" -> the NAME line's description.
string(REGEX MATCH "^[^\n]*" first "${top}")
string(REGEX REPLACE "^sbufsim [^ ]+ - " "" what "${first}")
# (not REGEX REPLACE: its '^' matches again after every replacement)
string(FIND "${top}" "\n\n" cut)
math(EXPR cut "${cut} + 2")
string(SUBSTRING "${top}" ${cut} -1 top_rest)

# The command table: the indented lines after "commands:" up to the next blank line.
string(REGEX MATCH "commands:\n([^\n]+\n)+" table "${top}")
string(REGEX MATCHALL "\n  [a-z]+ " names "${table}")

roff_block(description "${top_rest}")
set(page ".TH SBUFSIM 1 \"\" \"sbufsim ${VERSION}\" \"User Commands\"
.SH NAME
sbufsim \\- ${what}
.SH SYNOPSIS
.B sbufsim
.I command
.RI [ options ]
.br
.B sbufsim \\-\\-version
.SH DESCRIPTION
${description}.SH COMMANDS
")
foreach(name ${names})
  string(STRIP "${name}" name)
  help(text ${name})
  roff_block(block "${text}")
  string(APPEND page ".SS sbufsim ${name}\n${block}")
endforeach()
string(APPEND page ".SH ENVIRONMENT
.TP
.B SBUFSIM_CONFIG_DIR
the folder of the <gen>.ini generation files (else \\fIshare/sbufsim/configs\\fR next to the executable)
.TP
.B SBUFSIM_TRACE_DIR
the folder of the shipped traces (else \\fIshare/sbufsim/traces\\fR next to the executable)
.SH SEE ALSO
The documentation in \\fIshare/doc/sbufsim\\fR of the install prefix (README.md, and docs/cli.md and the others).
")
file(WRITE "${OUTPUT}" "${page}")
