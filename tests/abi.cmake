# The library's surface, checked without a GPU: the exported functions against the public
# headers, the direction of the #include lines between layers, and an install into a fresh
# prefix (exports of the installed library, RUNPATH of the installed programs).
find_program(SYMCOLL_READELF readelf)
get_property(SYMCOLL_INSTALLED_EXAMPLES GLOBAL PROPERTY SYMCOLL_INSTALLED_EXAMPLES)
add_test(NAME abi_exports
         COMMAND ${CMAKE_COMMAND} -DNM=${CMAKE_NM} -DLIBRARY=$<TARGET_FILE:symcoll>
                 -DINCLUDE_DIR=${PROJECT_SOURCE_DIR}/include
                 -P ${PROJECT_SOURCE_DIR}/cmake/check_exports.cmake)
add_test(NAME abi_layers
         COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
                 -P ${PROJECT_SOURCE_DIR}/cmake/check_layers.cmake)
add_test(NAME abi_install
         COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${PROJECT_BINARY_DIR}
                 -DPREFIX=${CMAKE_CURRENT_BINARY_DIR}/install_check -DNM=${CMAKE_NM}
                 -DREADELF=${SYMCOLL_READELF} -DLIBDIR=${CMAKE_INSTALL_LIBDIR}
                 "-DPROGRAMS=${CMAKE_INSTALL_BINDIR}/symcoll-perf;${SYMCOLL_INSTALLED_EXAMPLES}"
                 -P ${PROJECT_SOURCE_DIR}/cmake/check_install.cmake)
set_tests_properties(abi_exports abi_layers abi_install PROPERTIES LABELS abi TIMEOUT 120)
