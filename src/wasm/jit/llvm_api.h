/* wasm/jit/llvm_api.h: libLLVM-16 as the compiled tier uses it, loaded with dlopen on first use
 * (as telemetry/curl.c loads libcurl): linking it would cost every sbx process about 20 ms of
 * start-up (relocations and static constructors of a 120 MB library), whichever tier it runs.
 * Each function is one row; L(Name) calls LLVMName through the loaded table. */
#ifndef SBX_WASM_JIT_LLVM_API_H
#define SBX_WASM_JIT_LLVM_API_H

#include <stdbool.h>
#include <stddef.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

/* clang-format off */
#define SBX_LLVM_FUNCS(X) \
    X(AddAttributeAtIndex) \
    X(AddCase) \
    X(AddFunction) \
    X(AddGlobal) \
    X(AddIncoming) \
    X(AppendBasicBlockInContext) \
    X(ArrayType) \
    X(BuildAdd) \
    X(BuildAlloca) \
    X(BuildAnd) \
    X(BuildBinOp) \
    X(BuildBitCast) \
    X(BuildBr) \
    X(BuildCall2) \
    X(BuildCast) \
    X(BuildCondBr) \
    X(BuildExtractElement) \
    X(BuildExtractValue) \
    X(BuildFAdd) \
    X(BuildFCmp) \
    X(BuildFNeg) \
    X(BuildFPExt) \
    X(BuildGEP2) \
    X(BuildICmp) \
    X(BuildInsertElement) \
    X(BuildInsertValue) \
    X(BuildIntToPtr) \
    X(BuildIsNull) \
    X(BuildLoad2) \
    X(BuildNSWAdd) \
    X(BuildNot) \
    X(BuildOr) \
    X(BuildPhi) \
    X(BuildPtrToInt) \
    X(BuildRet) \
    X(BuildRetVoid) \
    X(BuildSExt) \
    X(BuildSRem) \
    X(BuildSelect) \
    X(BuildShuffleVector) \
    X(BuildStore) \
    X(BuildSwitch) \
    X(BuildTrunc) \
    X(BuildUnreachable) \
    X(BuildZExt) \
    X(ConstAllOnes) \
    X(ConstArray) \
    X(ConstBitCast) \
    X(ConstInt) \
    X(ConstNull) \
    X(ConstPointerNull) \
    X(ConstReal) \
    X(ConstRealGetDouble) \
    X(ConstVector) \
    X(ContextCreate) \
    X(ContextDispose) \
    X(CreateBuilderInContext) \
    X(CreatePassBuilderOptions) \
    X(CreateStringAttribute) \
    X(CreateTargetDataLayout) \
    X(CreateTargetMachine) \
    X(DisposeBuilder) \
    X(DisposeErrorMessage) \
    X(DisposeMemoryBuffer) \
    X(DisposeMessage) \
    X(DisposeModule) \
    X(DisposePassBuilderOptions) \
    X(DisposeTargetData) \
    X(DisposeTargetMachine) \
    X(DoubleTypeInContext) \
    X(FloatTypeInContext) \
    X(FunctionType) \
    X(GetBasicBlockTerminator) \
    X(GetBufferSize) \
    X(GetBufferStart) \
    X(GetDefaultTargetTriple) \
    X(GetErrorMessage) \
    X(GetFirstBasicBlock) \
    X(GetFirstFunction) \
    X(GetFirstInstruction) \
    X(GetHostCPUFeatures) \
    X(GetHostCPUName) \
    X(GetInlineAsm) \
    X(GetInsertBlock) \
    X(GetIntrinsicDeclaration) \
    X(GetMDKindIDInContext) \
    X(GetNamedFunction) \
    X(GetNamedGlobal) \
    X(GetNextBasicBlock) \
    X(GetNextFunction) \
    X(GetParam) \
    X(GetReturnType) \
    X(GetTargetFromTriple) \
    X(GetTargetMachineTriple) \
    X(GetUndef) \
    X(InitializeX86AsmPrinter) \
    X(InitializeX86Target) \
    X(InitializeX86TargetInfo) \
    X(InitializeX86TargetMC) \
    X(Int16TypeInContext) \
    X(Int1TypeInContext) \
    X(Int32TypeInContext) \
    X(Int64TypeInContext) \
    X(Int8TypeInContext) \
    X(IntTypeInContext) \
    X(IntrinsicGetType) \
    X(IsAConstantFP) \
    X(IsAFPExtInst) \
    X(IsConstant) \
    X(IsDeclaration) \
    X(LookupIntrinsicID) \
    X(MDNodeInContext2) \
    X(MDStringInContext2) \
    X(MetadataAsValue) \
    X(ModuleCreateWithNameInContext) \
    X(PointerTypeInContext) \
    X(PositionBuilderAtEnd) \
    X(PositionBuilderBefore) \
    X(RunPasses) \
    X(SetAlignment) \
    X(SetGlobalConstant) \
    X(SetInitializer) \
    X(SetFunctionCallConv) \
    X(SetInstructionCallConv) \
    X(SetTailCall) \
    X(SetLinkage) \
    X(SetMetadata) \
    X(SetModuleDataLayout) \
    X(SetOrdering) \
    X(SetTarget) \
    X(SetVolatile) \
    X(StructTypeInContext) \
    X(TargetMachineEmitToMemoryBuffer) \
    X(TypeOf) \
    X(ValueAsMetadata) \
    X(VectorType) \
    X(VerifyModule) \
    X(VoidTypeInContext)

/* clang-format on */

struct sbx__llvm_api {
#define SBX_LLVM_SLOT(name) __typeof__(LLVM##name) *name;
    SBX_LLVM_FUNCS(SBX_LLVM_SLOT)
#undef SBX_LLVM_SLOT
};

extern struct sbx__llvm_api sbx__llvm;

#define L(name) (sbx__llvm.name)

/* Loads libLLVM-16 and initialises the native target, once per process. Returns false with
 * "compiled tier: ..." in err when the library or a symbol is missing. Thread-safe. */
bool sbx__jit_llvm_load(char *err, size_t errlen);

#endif
