//===- WarpSpecializeLowering.cpp - producer and consumer warps ----------===//
//
// tile.warp_specialize becomes a branch on the thread index, before the
// rest of the kernel is converted (lowerWarpSpecialize):
//
//   if (tid >= consumers) {               // the producer warpgroup
//     [setmaxnreg.dec producer_registers]
//     if (tid < consumers + 32) { producer region }
//   } else {
//     [setmaxnreg.inc consumer_registers]
//     consumer region
//   }
//
// The consumers keep thread indices 0 .. consumers-1, so the layouts chosen
// for tile.num_warps warps hold unchanged. The producer branch carries the
// index of its first thread (getRoleThreadId), from which the ops that
// elect threads (mbarrier arrivals, TMA issue) count. After the conversion,
// the program-wide barriers of the consumer branch become barrier 1 over
// the consumer threads (retargetConsumerBarriers): the producer warps never
// reach them.
//
//===----------------------------------------------------------------------===//

#include "lowering/LoweringUtils.h"

#include "dialect/TileDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
// Attributes the lowering leaves on the branches until the conversion is
// done: the consumer and producer thread counts on the split, the
// producer's first thread on the branch that runs the producer region.
constexpr llvm::StringLiteral kConsumerThreadsAttr = "tile.consumer_threads";
constexpr llvm::StringLiteral kProducerThreadsAttr = "tile.producer_threads";
constexpr llvm::StringLiteral kRoleBaseAttr = "tile.role_thread_base";
} // namespace

Value mlir::tile::getRoleThreadId(OpBuilder &b, Location loc, Operation *op) {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    if (auto base = parent->getAttrOfType<IntegerAttr>(kRoleBaseAttr))
      return LLVM::SubOp::create(b, loc, tid, i32Const(b, loc, base.getInt()));
  return tid;
}

Value mlir::tile::isRoleThreadZero(OpBuilder &b, Location loc, Operation *op) {
  return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                              getRoleThreadId(b, loc, op), i32Const(b, loc, 0));
}

int64_t mlir::tile::getConsumerThreads(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    if (auto threads = parent->getAttrOfType<IntegerAttr>(kConsumerThreadsAttr))
      return threads.getInt();
  return 0;
}

int64_t mlir::tile::getProducerThreads(Operation *func) {
  int64_t threads = 0;
  func->walk(
      [&](WarpSpecializeOp op) { threads += 32 * op.getProducerWarps(); });
  func->walk([&](scf::IfOp op) {
    if (auto producers = op->getAttrOfType<IntegerAttr>(kProducerThreadsAttr))
      threads += producers.getInt();
  });
  return threads;
}

void mlir::tile::lowerWarpSpecialize(ModuleOp module) {
  SmallVector<WarpSpecializeOp> ops;
  module.walk([&](WarpSpecializeOp op) { ops.push_back(op); });
  for (WarpSpecializeOp op : ops) {
    Location loc = op.getLoc();
    auto func = op->getParentOfType<func::FuncOp>();
    int64_t consumers = 32 * getNumWarps(func);
    OpBuilder b(op);
    Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
    Value isProducer = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::uge,
                                            tid, i32Const(b, loc, consumers));
    auto split = scf::IfOp::create(b, loc, TypeRange(), isProducer,
                                   /*withElseRegion=*/true);
    split->setAttr(kConsumerThreadsAttr, b.getI64IntegerAttr(consumers));
    split->setAttr(kProducerThreadsAttr,
                   b.getI64IntegerAttr(32 * op.getProducerWarps()));
    std::optional<uint32_t> producerRegisters = op.getProducerRegisters();
    std::optional<uint32_t> consumerRegisters = op.getConsumerRegisters();

    b.setInsertionPointToStart(split.thenBlock());
    if (producerRegisters)
      NVVM::SetMaxRegisterOp::create(b, loc, *producerRegisters,
                                     NVVM::SetMaxRegisterAction::decrease);
    Value firstWarp =
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, tid,
                             i32Const(b, loc, consumers + 32));
    auto producer = scf::IfOp::create(b, loc, TypeRange(), firstWarp,
                                      /*withElseRegion=*/false);
    producer->setAttr(kRoleBaseAttr, b.getI64IntegerAttr(consumers));
    Block &producerBody = op.getProducer().front();
    producer.thenBlock()->getOperations().splice(
        producer.thenBlock()->getTerminator()->getIterator(),
        producerBody.getOperations());

    b.setInsertionPointToStart(split.elseBlock());
    if (consumerRegisters)
      NVVM::SetMaxRegisterOp::create(b, loc, *consumerRegisters,
                                     NVVM::SetMaxRegisterAction::increase);
    Block &consumerBody = op.getConsumers().front();
    split.elseBlock()->getOperations().splice(
        split.elseBlock()->getTerminator()->getIterator(),
        consumerBody.getOperations());
    op.erase();
  }
}

void mlir::tile::retargetConsumerBarriers(ModuleOp module) {
  SmallVector<scf::IfOp> splits;
  module.walk([&](scf::IfOp op) {
    if (op->hasAttr(kConsumerThreadsAttr))
      splits.push_back(op);
  });
  for (scf::IfOp split : splits) {
    int64_t consumers =
        split->getAttrOfType<IntegerAttr>(kConsumerThreadsAttr).getInt();
    SmallVector<NVVM::Barrier0Op> barriers;
    split.getElseRegion().walk(
        [&](NVVM::Barrier0Op op) { barriers.push_back(op); });
    for (NVVM::Barrier0Op barrier : barriers) {
      OpBuilder b(barrier);
      Location loc = barrier.getLoc();
      // Barrier 0 is the whole program's; 1 counts the consumers alone.
      NVVM::BarrierOp::create(b, loc, TypeRange(), i32Const(b, loc, 1),
                              i32Const(b, loc, consumers),
                              NVVM::BarrierReductionAttr(), Value());
      barrier.erase();
    }
    split->removeAttr(kConsumerThreadsAttr);
    split->removeAttr(kProducerThreadsAttr);
    split.walk([](scf::IfOp op) { op->removeAttr(kRoleBaseAttr); });
  }
}
