/**
 * Local Trading Service sandbox: the oracle for every other test. See README.md beside this file.
 *
 *   const sb = await startSandbox();            // ephemeral port on 127.0.0.1
 *   sb.baseUrl                                  // 'http://127.0.0.1:PORT'
 *   ...
 *   await sb.stop();
 */
import { SandboxServer } from './server';
import type { Sandbox, SandboxOptions } from './types';

export {
	DEMO_ACCOUNTS,
	DEMO_KEYS,
	DOCUMENTED_REQUEST_RATES,
	SYMBOLS,
	INITIAL_BALANCES,
} from './constants';
export { CODES, UNKNOWN_OUTCOME_CODES } from './codes';
export { FAULT_KINDS } from './faults';
export type {
	AccountTrade,
	AccountTradeFee,
	AddRecordInput,
	BalanceLine,
	CancelAnswer,
	DemoKey,
	FaultKind,
	FaultPlan,
	FaultRule,
	FundingFeeRecord,
	FundingRateRecord,
	FuturesControl,
	FuturesFillInput,
	FuturesFillResult,
	FuturesOpenOrderInput,
	FuturesOrder,
	FuturesOrderStatus,
	FuturesTimeInForce,
	FuturesPosition,
	FuturesTrade,
	HistoryRecord,
	Ledger,
	LedgerCancel,
	LedgerOrder,
	LedgerRequest,
	LedgerTransfer,
	OrderData,
	OrderStatus,
	OrderView,
	Permission,
	RateLimitConfig,
	RequestRates,
	Sandbox,
	SandboxBehaviour,
	SandboxOptions,
	SeedOpenOrderInput,
	SeedRecordsOptions,
	SeedTradesOptions,
	StreamControl,
	StreamHeartbeat,
	StreamStats,
} from './types';

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	const sb = new SandboxServer(options);
	await sb.listen();
	return sb;
}
