# packaging/install.cmake — what `cmake --install` puts under the prefix, and the .deb that
# `./build.sh package` makes from it with CPack. Included from the top-level CMakeLists.txt.
#
#   bin/attnviz
#   share/attnviz/                          assets/ (lessons, icons…), found by core::asset_dir()
#   share/applications/attnviz.desktop
#   share/icons/hicolor/{scalable,48x48,128x128,256x256}/apps/attnviz.{svg,png}
#   share/metainfo/io.github.attnviz.attnviz.metainfo.xml
#   share/man/man1/attnviz.1.gz
#   share/doc/attnviz/{copyright,changelog.gz}

include(GNUInstallDirs)
set(ATTNVIZ_APP_ID io.github.attnviz.attnviz)
set(ATTNVIZ_PACKAGING ${CMAKE_CURRENT_SOURCE_DIR}/packaging)

install(TARGETS attnviz RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# README pictures live in assets/ too but are not for the program.
install(DIRECTORY assets/ DESTINATION ${CMAKE_INSTALL_DATADIR}/attnviz PATTERN "screenshot*.png" EXCLUDE)

install(FILES ${ATTNVIZ_PACKAGING}/attnviz.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${ATTNVIZ_PACKAGING}/${ATTNVIZ_APP_ID}.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
install(FILES assets/icons/attnviz.svg DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
foreach(px 48 128 256)
  install(FILES assets/icons/attnviz-${px}.png DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${px}x${px}/apps
          RENAME attnviz.png)
endforeach()

# Debian wants manual pages and changelogs gzipped, without a timestamp (gzip -n) so builds repeat.
find_program(GZIP_EXECUTABLE gzip REQUIRED)
set(ATTNVIZ_GZIPPED)
foreach(source attnviz.1 changelog)
  add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/packaging/${source}.gz
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/packaging
    COMMAND ${GZIP_EXECUTABLE} -9n -c ${ATTNVIZ_PACKAGING}/${source} > ${CMAKE_BINARY_DIR}/packaging/${source}.gz
    DEPENDS ${ATTNVIZ_PACKAGING}/${source}
    COMMENT "Compressing packaging/${source}")
  list(APPEND ATTNVIZ_GZIPPED ${CMAKE_BINARY_DIR}/packaging/${source}.gz)
endforeach()
add_custom_target(attnviz_packaging_files ALL DEPENDS ${ATTNVIZ_GZIPPED})
install(FILES ${CMAKE_BINARY_DIR}/packaging/attnviz.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${ATTNVIZ_PACKAGING}/copyright ${CMAKE_BINARY_DIR}/packaging/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/attnviz)

# ---- the .deb (cpack -G DEB, run by ./build.sh package) ----------------------------------
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME attnviz)
set(CPACK_PACKAGE_VENDOR "the attnviz developers")
# Who answers for the package: set it when building a package to publish.
set(ATTNVIZ_MAINTAINER "attnviz developers <attnviz@example.org>" CACHE STRING "The .deb's Maintainer field")
set(CPACK_PACKAGE_CONTACT "${ATTNVIZ_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "see and learn scaled dot-product attention")
# The long description; CPack puts the summary above it as the synopsis line.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "attnviz shows every step of scaled dot-product attention on numbers you can
edit: token embeddings, the weights W_Q, W_K and W_V, the scores, the softmax
weights and the output all change in the same frame. Click a row of the
attention heatmap to read its calculation, drag a query arrow, toggle the
causal mask, compare heads and step a decoder through its key-value cache.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # attnviz_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Depends: what dpkg-shlibdeps finds the binary really links, plus the fonts it loads at run time.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "fonts-dejavu-core")
set(CPACK_STRIP_FILES ON)
set(CPACK_SOURCE_IGNORE_FILES "/build.*/;/\\\\.git/")
include(CPack)
