# amdsmi.cmake - the optional amd-smi sampler backend (src/sample/sample_amdsmi.c).
# Built only when ROCm's amd_smi/amdsmi.h and libamd_smi are found under
# ROCM_PATH (environment or -DROCM_PATH=..., default /opt/rocm); otherwise the
# file compiles to nothing and the amdgpu sysfs backend covers AMD GPUs.
# A binary built with it needs libamd_smi.so at run time.
if(NOT DEFINED ROCM_PATH)
  if(DEFINED ENV{ROCM_PATH})
    set(ROCM_PATH "$ENV{ROCM_PATH}")
  else()
    set(ROCM_PATH /opt/rocm)
  endif()
endif()
find_path(BR_AMDSMI_INCLUDE amd_smi/amdsmi.h PATHS ${ROCM_PATH}/include NO_DEFAULT_PATH)
find_library(BR_AMDSMI_LIB amd_smi PATHS ${ROCM_PATH}/lib ${ROCM_PATH}/lib64 NO_DEFAULT_PATH)
if(BR_AMDSMI_INCLUDE AND BR_AMDSMI_LIB)
  target_compile_definitions(benchrun_core PUBLIC BENCHRUN_HAVE_AMDSMI)
  target_include_directories(benchrun_core PRIVATE ${BR_AMDSMI_INCLUDE})
  target_link_libraries(benchrun_core PUBLIC ${BR_AMDSMI_LIB})
  message(STATUS "benchrun: amd-smi sampler backend: ${BR_AMDSMI_LIB}")
else()
  message(STATUS "benchrun: amd-smi sampler backend not built (no amd_smi/amdsmi.h under ${ROCM_PATH})")
endif()
