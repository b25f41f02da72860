# Install rules and the Debian package (docs/install.md).
#
#   cmake --install build --prefix /opt/sbufsim        bin/sbufsim, lib/sbufsim/sbufsim_clocked.so,
#                                                       share/sbufsim/{configs,traces,scripts},
#                                                       share/doc/sbufsim/{README.md,docs},
#                                                       share/man/man1/sbufsim.1,
#                                                       the Python package (SBUFSIM_PYTHON_INSTALL_DIR)
#   cd build && cpack -G DEB                            sbufsim_<version>_<arch>.deb for /usr
#
#   cmake --install build --prefix P --component dev   the SystemC models for embedding: lib/libsbufsim_{core,models}.a,
#                                                       include/sbufsim (core and models/<area>/ headers),
#                                                       lib/cmake/sbufsim/sbufsimConfig.cmake (sbufsim::models)
#
# The install is relocatable: the binary finds share/sbufsim from its own folder and the Python
# module from its own file, so a copied or moved prefix keeps working.
#
# Installing never builds: build first (scripts/setup.sh, cmake --build). `cpack` and `make
# install` would otherwise rebuild whatever is out of date, e.g. every binary linking the
# revision after a commit, in the middle of a test run (the package test runs cpack).
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

install(TARGETS sbufsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The clocked scheduler, opened by the executable from <bin>/SBUFSIM_BIN_TO_MODULE (CMakeLists.txt).
install(TARGETS sbufsim_clocked LIBRARY DESTINATION ${SBUFSIM_MODULE_INSTALL_DIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs/ DESTINATION ${SBUFSIM_DATA_INSTALL_DIR}/configs)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/traces/ DESTINATION ${SBUFSIM_DATA_INSTALL_DIR}/traces)
# The NKI kernels and the SystemC platform the docs run (examples/nki/matmul.py, ...).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${SBUFSIM_DATA_INSTALL_DIR}/examples)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
# Beside README.md as in the source tree, so its docs/*.md links resolve in the install too.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
install(FILES ${SBUFSIM_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
# The Slurm job-array script (docs/sweeps.md): finds the installed sbufsim on PATH.
install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/slurm_sweep.sh DESTINATION ${SBUFSIM_DATA_INSTALL_DIR}/scripts)

# ---- dev component: the models as a library (docs/models.md, "Embedding") ------------------------
# Not part of a full install nor of the Debian package (EXCLUDE_FROM_ALL): only
# `--component dev` installs it. The core's static library holds every area's objects.
if(TARGET sbufsim_models)
  install(TARGETS sbufsim_core sbufsim_models ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          COMPONENT dev EXCLUDE_FROM_ALL)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/sbufsim DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
          COMPONENT dev EXCLUDE_FROM_ALL)
  # models/<area>/x.h as include/sbufsim/models/<area>/x.h: included as "models/<area>/x.h", as in
  # the source tree, with include/sbufsim on the include path (sbufsimConfig.cmake).
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/models/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sbufsim/models
          COMPONENT dev EXCLUDE_FROM_ALL FILES_MATCHING PATTERN "*.h")
  set(SBUFSIM_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/sbufsim)
  file(RELATIVE_PATH SBUFSIM_CONFIG_TO_PREFIX "/prefix/${SBUFSIM_CMAKE_INSTALL_DIR}" "/prefix")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/sbufsimConfig.cmake.in
                 ${PROJECT_BINARY_DIR}/cmake/sbufsimConfig.cmake @ONLY)
  include(CMakePackageConfigHelpers)
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/sbufsimConfigVersion.cmake
                                   VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/cmake/sbufsimConfig.cmake ${PROJECT_BINARY_DIR}/cmake/sbufsimConfigVersion.cmake
          DESTINATION ${SBUFSIM_CMAKE_INSTALL_DIR} COMPONENT dev EXCLUDE_FROM_ALL)
endif()

# ---- Debian package --------------------------------------------------------------------------
# Its dependencies are Debian's runtime packages: dpkg-shlibdeps reads them off the binaries'
# shared libraries (libsystemc, libboost-program-options, libspdlog, libfmt, libstdc++ ...);
# the Python module adds the python3 it was built for.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME sbufsim)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "cycle-approximate simulator of a NeuronCore's SBUF/PSUM memory subsystem")
set(CPACK_PACKAGE_DESCRIPTION "Replays DMA and matmul traces through a model of one NeuronCore's
State Buffer banks, PSUM, two-stage arbiter, TDM slots and throttlers, reports where the
cycles went and sweeps the settings (command line and Python module).")
set(SBUFSIM_PACKAGE_CONTACT "sbufsim maintainers <sbufsim@localhost>" CACHE STRING "Maintainer field of the Debian package")
set(CPACK_PACKAGE_CONTACT "${SBUFSIM_PACKAGE_CONTACT}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# PNG charts (--heatmap F.png, plot -o F.png) render their SVG through rsvg-convert.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "librsvg2-bin")
if(SBUFSIM_BUILD_PYTHON)
  # The extension is built for one python3 minor version (its file name says cpython-3X).
  math(EXPR next_minor "${Python3_VERSION_MINOR} + 1")
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "python3 (>= ${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}), python3 (<< ${Python3_VERSION_MAJOR}.${next_minor})")
  set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3-pandas, python3-matplotlib")
endif()
include(CPack)
