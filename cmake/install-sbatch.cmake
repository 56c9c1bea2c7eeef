# install-sbatch.cmake - run at install time (install(CODE) in CMakeLists.txt):
# copies scripts/*.sbatch into <prefix>/share/benchrun/scripts with
# @BENCHRUN_BIN@ replaced by the installed binary's absolute path. Done at
# install time, not configure time, so `cmake --install --prefix X` (what
# `make install PREFIX=X` runs) gets X, not the configure-time prefix.
# Inputs: BR_SBATCH_SRC (folder), BR_BINDIR, BR_DATADIR (relative or absolute).
foreach(dir BR_BINDIR BR_DATADIR)
  if(IS_ABSOLUTE "${${dir}}")
    set(${dir}_ABS "${${dir}}")
  else()
    set(${dir}_ABS "${CMAKE_INSTALL_PREFIX}/${${dir}}")
  endif()
endforeach()
set(BENCHRUN_BIN "${BR_BINDIR_ABS}/benchrun")
# The placeholder is assembled so that old-policy @VAR@ expansion (CMP0053)
# cannot turn it into the variable's value.
string(CONCAT placeholder "@" "BENCHRUN_BIN" "@")
set(dest "$ENV{DESTDIR}${BR_DATADIR_ABS}/benchrun/scripts")
file(MAKE_DIRECTORY "${dest}")
file(GLOB wrappers "${BR_SBATCH_SRC}/*.sbatch")
foreach(w ${wrappers})
  get_filename_component(name "${w}" NAME)
  file(READ "${w}" text)
  string(REPLACE "${placeholder}" "${BENCHRUN_BIN}" text "${text}")
  file(WRITE "${dest}/${name}" "${text}")
  file(CHMOD "${dest}/${name}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
       GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  message(STATUS "Installing: ${dest}/${name} (benchrun = ${BENCHRUN_BIN})")
endforeach()
