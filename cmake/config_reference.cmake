# Writes the configuration key reference: `SBUFSIM config --reference` into OUTPUT, through a
# temporary renamed into place (a failed run leaves no partial file).
#   cmake -DSBUFSIM=build/sbufsim -DOUTPUT=build/docs/config-reference.md -P cmake/config_reference.cmake
get_filename_component(dir "${OUTPUT}" DIRECTORY)
file(MAKE_DIRECTORY "${dir}")
execute_process(COMMAND "${SBUFSIM}" config --reference OUTPUT_FILE "${OUTPUT}.tmp" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE "${OUTPUT}.tmp")
  message(FATAL_ERROR "${SBUFSIM} config --reference failed (${rc})")
endif()
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
