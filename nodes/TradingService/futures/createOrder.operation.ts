import {
	NodeOperationError,
	updateDisplayOptions,
	type IDataObject,
	type INodeProperties,
} from 'n8n-workflow';

import type { NodeVersion } from '../descriptions/pickers';
import type { RunContext } from '../run/runContext';
import { settleWrites } from '../writes/engine';
import { withOutcome } from '../writes/outcomes';
import { writeSessionOf } from '../writes/writeSession';
import { unknownContractError } from './contracts';
import { checkFuturesGuardrails, readFuturesGuardrails } from './futuresGuardrails';
import {
	checkFuturesOrders,
	claimOrderIds,
	recordedInLedger,
	type CheckedFuturesOrder,
	type FuturesOrderToCheck,
} from './futuresOrderChecks';
import {
	createOrderFields,
	futuresOrderOptionList,
	futuresParameterLabel as label,
	readCreateOrder,
} from './futuresOrderProperties';
import {
	checkFuturesOptions,
	futuresGuardrails,
	futuresOptions,
	futuresTechnicalOptions,
} from './futuresWriteOptions';
import { validateFuturesOrder } from './futuresOrderRules';
import {
	futuresOrderKind,
	pendingFuturesOrder,
	replayedFuturesOrder,
	type PendingFuturesOrder,
} from './futuresOrderWrites';

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['futures'], operation: ['createOrder'] } }, [
		...createOrderFields(version),
		futuresGuardrails(),
		futuresOptions([...futuresOrderOptionList, ...futuresTechnicalOptions]),
	]);

type Prepared = CheckedFuturesOrder & { options: IDataObject };

function readItem(
	run: RunContext,
	itemIndex: number,
): FuturesOrderToCheck & { options: IDataObject } {
	const options = run.options(itemIndex, (raw) => checkFuturesOptions(run, raw, itemIndex));
	const guardrails = readFuturesGuardrails(run, itemIndex);
	const order = validateFuturesOrder(
		run.node,
		readCreateOrder(run, itemIndex, options),
		label,
		itemIndex,
	);
	checkFuturesGuardrails(run.node, order, guardrails, label, itemIndex);
	const recorded = recordedInLedger(writeSessionOf(run).ledger, String(itemIndex), order);
	return { order, label, itemIndex, guardrails, recorded, options };
}

/** Every item checked before the first order is sent. */
async function prepareItems(run: RunContext): Promise<Map<number, Prepared | Error>> {
	const prepared = new Map<number, Prepared | Error>();
	const toCheck: Array<FuturesOrderToCheck & { options: IDataObject }> = [];
	const taken = new Map<string, { itemIndex: number; whose: string }>();
	const itemCount = run.functions.getInputData().length;
	for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
		try {
			const item = readItem(run, itemIndex);
			claimOrderIds(run.node, taken, item.order, 'Client Order ID', itemIndex);
			toCheck.push(item);
		} catch (error) {
			prepared.set(itemIndex, error as Error);
		}
	}
	const checked = await checkFuturesOrders(run, toCheck);
	checked.forEach((result, index) => {
		const { itemIndex, options } = toCheck[index];
		prepared.set(itemIndex, result instanceof Error ? result : { ...result, options });
	});
	return prepared;
}

const preparations = new WeakMap<RunContext, Promise<Map<number, Prepared | Error>>>();

function createdItem(run: RunContext, pending: PendingFuturesOrder): IDataObject {
	const settled = pending.settled!;
	if (settled.outcome === 'placed') {
		const already = settled.alreadyPlaced ? { alreadyPlaced: true } : {};
		if (settled.via === 'ledger')
			return { ...replayedFuturesOrder(pending.write, settled.result), ...already };
		return { outcome: 'placed', ...already, ...settled.result, ...childIds(pending) };
	}
	if (settled.outcome === 'unknown') throw settled.error;
	const error =
		settled.refusal.error ??
		new NodeOperationError(run.node, 'The service refused the order', {
			itemIndex: pending.itemIndex,
		});
	throw withOutcome(
		unknownContractError(error, 'Symbol', () => pending.write.order.symbol) as typeof error,
		'rejected',
	);
}

/** The client order IDs the node gave the take-profit and stop-loss orders, to find them again. */
export function childIds(pending: PendingFuturesOrder): IDataObject {
	const { tpClientOrderId, slClientOrderId } = pending.write.order;
	return {
		...(tpClientOrderId === undefined ? {} : { tpClientOrderId }),
		...(slClientOrderId === undefined ? {} : { slClientOrderId }),
	};
}

/** Nothing is sent while any item is refused. */
export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	let preparation = preparations.get(run);
	if (preparation === undefined) {
		preparation = prepareItems(run);
		preparations.set(run, preparation);
	}
	const prepared = await preparation;
	if (!run.continueOnFail) {
		const refused = [...prepared.entries()]
			.filter((entry): entry is [number, Error] => entry[1] instanceof Error)
			.sort(([a], [b]) => a - b)[0];
		if (refused !== undefined) throw refused[1];
	}
	const mine = prepared.get(itemIndex);
	if (mine === undefined) throw new NodeOperationError(run.node, 'No such item', { itemIndex });
	if (mine instanceof Error) throw mine;
	const { order, given, options, report } = mine;
	const writes = writeSessionOf(run);
	const idPrefix = options.generateClientOrderId === false ? undefined : writes.idPrefix;
	const pending = pendingFuturesOrder(
		writes.ledger,
		String(itemIndex),
		{ order, orderIndex: 0, given },
		itemIndex,
		idPrefix,
	);
	const kind = futuresOrderKind(writes, {
		endpoint: 'single',
		recvWindow: options.recvWindow as number | undefined,
	});
	await settleWrites(writes, kind, [pending]);
	return [{ ...createdItem(run, pending), ...report }];
}
