// Codegen: the public face of the last compiler stage, for the driver.
//
//   LLVM module (from compiler/lower) --fuseMultiplyAdds--> (same module,
//                                       fusion decided for both targets)
//                                     --emitPtx-->    PTX text (GPU)
//                                     --jitForHost--> native code (CPU
//                                     executor)
//
// Before lowering, configure the fresh module with configureForNvptx() or
// configureForHost() so that the lowering can query its DataLayout.
#pragma once

#include "codegen/FuseMultiplyAdd.h"
#include "codegen/HostBackend.h"
#include "codegen/Libdevice.h"
#include "codegen/NvptxBackend.h"
#include "codegen/NvvmBackend.h"
#include "codegen/NvvmIrWriter.h"
#include "codegen/Targets.h"
