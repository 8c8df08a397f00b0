/**
 * Cancels as write kinds of the money-safety matrix (money safety 4): one faulted node run of
 * Order › Cancel by client order ID, Cancel Many by order IDs or Cancel Many by symbol, with a
 * master key whose sub account holds an identical order under every client order ID of the main
 * account's (its twin). The sandbox's ledger (its cancels, each with its account, and the orders'
 * states) is the oracle for each order's report. Deterministic as matrix.ts: the seed picks the
 * orders, the forced fault and the random faults; the run resets its sandbox first.
 *
 * A cancel applied twice is impossible (the exchange refuses to cancel a closed order), so a
 * "doubled" cancel is a report that disagrees with the ledger: cancelled but not cancelled by the
 * run, or rejected but cancelled. Any cancel of a sub account's order is a violation, and so is an
 * item carrying one.
 */
import { runTradingService, type NodeRun } from '../../tools/harness/node';
import {
	DEMO_ACCOUNTS,
	DEMO_KEYS,
	type FaultRule,
	type LedgerRequest,
	type OrderView,
	type Sandbox,
} from '../../sandbox';
import { MALFORMED_KINDS } from '../../sandbox/faults';
import { Rng, byInputItem } from './lib';
import {
	FORCED_FAULTS,
	carriesOtherAccount,
	newTwins,
	reportOf,
	reportedOrderIdOf,
	type Reported,
	type Twins,
	type WriteVerdict,
} from './matrix';

export const CANCEL_KINDS = ['cancelByClientId', 'cancelManyIds', 'cancelManySymbol'] as const;
export type CancelKind = (typeof CANCEL_KINDS)[number];

/** One order the run means to cancel (or, refused, cannot), with the ledger's and the node's word. */
export type CancelVerdict = Omit<WriteVerdict, 'kind'> & {
	kind: CancelKind;
	/** The main account's order (none: only the sub account holds its client order ID). */
	orderId?: string;
	twinOrderId: string;
	/** The main account's order's status after the run. */
	finalStatus?: string;
};

export interface CancelMatrixRun {
	name: string;
	kind: CancelKind;
	retryOnFail: boolean;
	continueOnFail: boolean;
	faults: string[];
	writeRequests: number;
	requests: LedgerRequest[];
	verdicts: CancelVerdict[];
	reachedOtherHost: number;
	/** Cancels the sandbox applied to orders of another account than the main trading account. */
	otherAccountCancels: number;
	/** Output items of the run carrying another account's order (a twin's ID, or another account). */
	otherAccountItems: number;
	/** Orders the sub account held as twins of the main account's. */
	twinOrders: number;
	error?: Error;
}

export interface CancelMatrixRunOptions {
	kind: CancelKind;
	retryOnFail: boolean;
	continueOnFail: boolean;
	seed: number;
	name: string;
}

const MAIN = DEMO_ACCOUNTS.mainTrading;
const CANCEL_PATH = '/api/v1/spot/order';
const CANCEL_IDS_PATH = '/api/v1/spot/cancelOrderByIds';
const OPEN_ORDERS_PATH = '/api/v1/spot/openOrders';
const SYMBOL = 'ETHUSDT';
const FAULTS_AFTER_COMMIT = new Set<string>([
	'dropAfter',
	'http500After',
	'http502After',
	'http503After',
	'unknownAfter',
	'dripFeed',
	...MALFORMED_KINDS,
]);

/** The order IDs an item names (its own, and its order's). */
function orderIdsOf(json: Record<string, unknown>): string[] {
	const order = json.order as Record<string, unknown> | null | undefined;
	return [json.orderId, order?.orderId]
		.filter((id) => id !== undefined && id !== null)
		.map((id) => String(id));
}

function parametersFor(kind: CancelKind): Record<string, unknown> {
	switch (kind) {
		case 'cancelByClientId':
			return {
				resource: 'order',
				operation: 'cancel',
				clientOrderId: '={{ $json.clientOrderId }}',
			};
		case 'cancelManyIds':
			return {
				resource: 'order',
				operation: 'cancelMany',
				cancelBy: 'ids',
				orderIds: '={{ $json.ids }}',
			};
		case 'cancelManySymbol':
			return { resource: 'order', operation: 'cancelMany', cancelBy: 'symbol', symbol: SYMBOL };
	}
}

interface Target {
	clientOrderId: string;
	/** The main account's order, if it has one. */
	main?: OrderView;
	twin: OrderView;
	/** Bound to be refused: no main order (by client ID), or it is filled before the run. */
	refused: boolean;
	/** The input item whose report covers it. */
	itemIndex: number;
}

/**
 * One faulted run of a cancel kind: 2 or 3 resting orders in the main account, each with a twin
 * in the sub account; a fault forced on the first cancel request, seeded random faults on the
 * cancel path (and on the lookups and lists sharing it), sometimes failing lookups; then each
 * order's ledger state against its report.
 */
export async function cancelMatrixRun(
	sb: Sandbox,
	options: CancelMatrixRunOptions,
): Promise<CancelMatrixRun> {
	const { kind, retryOnFail, continueOnFail, name, seed } = options;
	const rng = new Rng(seed);
	sb.reset();
	const twins: Twins = newTwins();
	const count = rng.int(2, 3);
	const targets: Target[] = [];
	for (let index = 0; index < count; index++) {
		const side = rng.pick(['BUY', 'SELL'] as const);
		const price = side === 'BUY' ? '100' : '90000';
		const quantity = `0.0${index + 1}${rng.int(1, 9)}`;
		const clientOrderId = `${name}-c${index}`;
		// By client ID, a refused order is one only the sub account holds; by IDs, one filled before
		// the run (by symbol it is then not open, and no item may name it).
		const refused = rng.chance(0.2);
		const seedOne = (key: typeof DEMO_KEYS.master) =>
			sb.seedOpenOrder({
				key,
				symbol: SYMBOL,
				side,
				price,
				quantity,
				clientOrderId,
				time: sb.now(),
			});
		const subFirst = rng.chance(0.5);
		let twin: OrderView | undefined;
		if (subFirst) twin = seedOne(DEMO_KEYS.sub);
		const main = kind === 'cancelByClientId' && refused ? undefined : seedOne(DEMO_KEYS.master);
		if (!subFirst) twin = seedOne(DEMO_KEYS.sub);
		if (main !== undefined && refused) sb.fillOrder(main.orderId);
		twins.byClientOrderId.set(clientOrderId, twin!.orderId);
		twins.orderIds.add(twin!.orderId);
		targets.push({
			clientOrderId,
			main,
			twin: twin!,
			refused,
			itemIndex: kind === 'cancelByClientId' ? index : 0,
		});
	}

	const writePath = kind === 'cancelByClientId' ? CANCEL_PATH : CANCEL_IDS_PATH;
	const forced = rng.pick(FORCED_FAULTS);
	const rules: FaultRule[] = [
		{
			kind: forced,
			times: 1,
			path: writePath,
			method: 'DELETE',
			redirectStatus: rng.chance(0.5) ? 303 : 307,
		},
	];
	if (rng.chance(0.06)) rules.push({ kind: 'http500', times: 8, path: CANCEL_PATH, method: 'GET' });
	sb.setFaults({
		rules,
		random: {
			seed,
			http5xx: 0.05,
			dropBefore: 0.03,
			dropAfter: 0.1,
			http5xxAfter: 0.1,
			unknownBefore: 0.04,
			unknownAfter: 0.08,
			redirect: 0.03,
			malformed: 0.05,
			dripFeed: 0.02,
			paths: kind === 'cancelManySymbol' ? [writePath, OPEN_ORDERS_PATH] : [writePath],
		},
	});

	const inputs: Array<Record<string, string>> =
		kind === 'cancelByClientId'
			? targets.map((target) => ({ clientOrderId: target.clientOrderId }))
			: kind === 'cancelManyIds'
				? [{ ids: targets.map((target) => target.main!.orderId).join(',') }]
				: [{}];

	const before = sb.ledger.requests.length;
	const run: NodeRun = await runTradingService(sb, {
		parameters: parametersFor(kind) as never,
		inputItems: inputs.map((json) => ({ json })),
		continueOnFail,
		executionId: name,
		credentials: { recvWindow: 200 },
		node: retryOnFail ? { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 } : {},
	});
	const requests = sb.ledger.requests.slice(before);
	const writes = requests.filter(
		(request) => request.path === writePath && request.method === 'DELETE',
	);
	const runFaulted = requests.some((request) => request.fault !== undefined);
	const error = run.error as
		| (Error & { description?: string | null; context?: Record<string, unknown> })
		| undefined;
	const errorItem = error?.context?.itemIndex;
	const outputs = byInputItem(run.items);

	const verdicts = targets.map((target): CancelVerdict => {
		const orderId = target.main?.orderId;
		const committed =
			orderId === undefined
				? 0
				: sb.ledger.cancels.filter(
						(cancel) => cancel.orderId === orderId && cancel.accountId === MAIN,
					).length;
		const twinTouched =
			sb.ledger.cancels.some((cancel) => cancel.orderId === target.twin.orderId) ||
			sb.getOrder(target.twin.orderId)?.status !== 'NEW';
		const itemOutputs = outputs.get(target.itemIndex) ?? [];
		// This order's items: by client ID, its input item's; by IDs or symbol, those naming it, or
		// the input item's one error item when the whole item failed.
		const own =
			kind === 'cancelByClientId'
				? itemOutputs
				: itemOutputs.filter(
						(item) => orderId !== undefined && String(item.json.orderId) === orderId,
					);
		const wholeItem =
			kind !== 'cancelByClientId' && own.length === 0
				? itemOutputs.filter(
						(item) => item.json.orderId === undefined && item.json.error !== undefined,
					)
				: [];
		const items = own.length > 0 ? own : wholeItem;
		// An item naming this order's twin, or this order's item carrying another account's order.
		const carriesTwin =
			itemOutputs.some((item) => orderIdsOf(item.json).includes(target.twin.orderId)) ||
			items.some((item) => carriesOtherAccount(item.json as Record<string, unknown>, twins));
		const itemWrites = writes.filter(
			(request) =>
				orderId !== undefined &&
				(new URLSearchParams(request.query).get('orderId') === orderId ||
					(new URLSearchParams(request.query).get('ids') ?? '').split(',').includes(orderId)),
		);
		const faultAfterCommit = itemWrites.some(
			(request) =>
				request.fault !== undefined &&
				FAULTS_AFTER_COMMIT.has(request.fault) &&
				request.appliedStatus === 200,
		);
		let reported: Reported = 'none';
		let claimsNothingExecuted = false;
		let reportedOrderId: string | undefined;
		let detail = '';
		let fromRerun = false;
		if (items.length > 0) {
			const json = items[0].json as Record<string, unknown>;
			const report = reportOf(json);
			reported = items.length === 1 ? report.reported : 'missing';
			// An item that says "cancelled: false" is a rejection whatever else it says.
			if (reported === 'placed' && json.cancelled !== true) reported = 'missing';
			claimsNothingExecuted = report.claimsNothingExecuted;
			reportedOrderId = report.reported === 'placed' ? reportedOrderIdOf(json) : undefined;
			detail = items.length === 1 ? report.text.trim() : `${items.length} items for one order`;
			fromRerun = json.replayed === true || /an earlier try of this node run/.test(report.text);
		} else if (error !== undefined && (errorItem === target.itemIndex || errorItem === undefined)) {
			const report = reportOf({
				outcome: error.context?.outcome,
				error: error.message,
				description: error.description,
			});
			reported = errorItem === undefined ? 'missing' : report.reported;
			claimsNothingExecuted = report.claimsNothingExecuted;
			detail = report.text.trim();
			fromRerun = /an earlier try of this node run/.test(report.text);
		} else if (error === undefined && !(kind === 'cancelManySymbol' && target.refused)) {
			// The run ended without an error: every order it was asked about (by symbol: every
			// order open at the start) needs an item.
			reported = 'missing';
			detail = 'no item names this order';
		}
		return {
			run: name,
			kind,
			retryOnFail,
			continueOnFail,
			itemIndex: target.itemIndex,
			committed,
			reported,
			claimsNothingExecuted,
			reportedOrderId,
			ledgerOrderId: committed > 0 ? orderId : undefined,
			faultAfterCommit,
			fromRerun,
			listed: [],
			detail,
			otherAccountsOrder: twinTouched || carriesTwin,
			runFaulted,
			orderId,
			twinOrderId: target.twin.orderId,
			finalStatus: orderId === undefined ? undefined : sb.getOrder(orderId)?.status,
		};
	});
	return {
		name,
		kind,
		retryOnFail,
		continueOnFail,
		faults: requests
			.filter((request) => request.fault !== undefined)
			.map((request) => request.fault as string),
		writeRequests: writes.length,
		requests,
		verdicts,
		reachedOtherHost: sb.otherHost.requests.length,
		twinOrders: twins.orderIds.size,
		otherAccountCancels: sb.ledger.cancels.filter((cancel) => cancel.accountId !== MAIN).length,
		otherAccountItems: run.items.filter((item) =>
			carriesOtherAccount(item.json as Record<string, unknown>, twins),
		).length,
		error,
	};
}
