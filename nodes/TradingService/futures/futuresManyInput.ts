import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { inputError } from '../helpers/validation';
import type { RunContext } from '../run/runContext';
import { parseJsonKeepingDigits, toNodeError } from '../transport';
import { errorItemJson, withOutcome } from '../writes/outcomes';
import { writeSessionOf } from '../writes/writeSession';
import { checkFuturesGuardrails, type FuturesGuardrails } from './futuresGuardrails';
import {
	checkFuturesOrders,
	claimOrderIds,
	recordedInLedger,
	type FuturesOrderToCheck,
} from './futuresOrderChecks';
import { FUTURES_ORDER_FIELDS, validateFuturesOrder } from './futuresOrderRules';
import { pendingFuturesOrder, type PendingFuturesOrder } from './futuresOrderWrites';

/** One slot list per input item: the output comes in input order whatever the batching. */
export type Outputs = INodeExecutionData[][];

const fold = (key: string) => key.toLowerCase().replace(/[\s_-]/g, '');
const FOLDED = new Map(FUTURES_ORDER_FIELDS.map((field) => [fold(field), field as string]));

/**
 * Names of order fields in Create Order (its parameters and output items), Set Position TP/SL and
 * spot orders: an item carrying one is refused, never ignored (a LONG without its stop loss).
 */
const ALIASES: Record<string, string> = {
	orderType: 'type',
	quantity: 'baseQty (or quoteQty, for a quantity in the quote coin)',
	originalBaseQty: 'baseQty',
	origQty: 'baseQty',
	originalQuoteQty: 'quoteQty',
	newClientOrderId: 'clientOrderId',
	takeProfit: 'tpTriggerPrice',
	takeProfitPrice: 'tpTriggerPrice',
	takeProfitTriggerBy: 'tpTriggerBy',
	takeProfitLimitPrice: 'tpLimitPrice',
	stopLoss: 'slTriggerPrice',
	stopLossPrice: 'slTriggerPrice',
	stopLossTriggerBy: 'slTriggerBy',
	stopLossLimitPrice: 'slLimitPrice',
	tpClientOrderId: 'clientOrderId (the node names the take-profit order <clientOrderId>-tp)',
	slClientOrderId: 'clientOrderId (the node names the stop-loss order <clientOrderId>-sl)',
};
const FOLDED_ALIASES = new Map(Object.entries(ALIASES).map(([alias, to]) => [fold(alias), to]));

/** A near miss or alias of a field name is refused. */
function orderOfItem(run: RunContext, json: IDataObject, itemIndex: number): IDataObject {
	const raw: IDataObject = {};
	for (const [key, value] of Object.entries(json)) {
		const field = FOLDED.get(fold(key));
		const alias = field === undefined ? FOLDED_ALIASES.get(fold(key)) : undefined;
		if (alias !== undefined && value !== null && value !== undefined && value !== '')
			throw inputError(
				run.node,
				`Item ${itemIndex}, field ${key}`,
				'is not a field of Create Many Orders',
				`Rename it to ${alias}: it would otherwise be ignored, and the order sent without it.`,
				itemIndex,
			);
		if (field === undefined) continue; // not an order field: the item's own data
		if (field !== key)
			throw inputError(
				run.node,
				`Item ${itemIndex}, field ${key}`,
				`is not an order field, but ${field} is`,
				`Rename it to ${field}: field names are read exactly, and ${key} would otherwise be ignored.`,
				itemIndex,
			);
		if (value !== null && value !== undefined) raw[field] = value;
	}
	return raw;
}

function ordersOfItem(
	run: RunContext,
	items: INodeExecutionData[],
	itemIndex: number,
): Array<{ raw: IDataObject; label: (field: string) => string }> {
	if (run.parameter('inputMode', itemIndex, 'items') !== 'json') {
		const raw = orderOfItem(run, items[itemIndex].json, itemIndex);
		return [{ raw, label: (field) => `Item ${itemIndex}, field ${field}` }];
	}
	let value = run.parameter('ordersJson', itemIndex);
	if (typeof value === 'string') {
		try {
			value = parseJsonKeepingDigits(value);
		} catch (error) {
			throw inputError(
				run.node,
				'Orders (JSON)',
				`is not valid JSON (${(error as Error).message})`,
				'Enter a JSON array of order objects.',
				itemIndex,
			);
		}
	}
	if (!Array.isArray(value))
		throw inputError(
			run.node,
			'Orders (JSON)',
			'is not an array',
			'Wrap the orders in [ ... ], even a single one.',
			itemIndex,
		);
	return value.map((raw, orderIndex) => {
		if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
			throw inputError(
				run.node,
				`Orders (JSON)[${orderIndex}]`,
				'is not an object',
				'Each order is an object such as {"symbol": "BTCUSDT-PERPETUAL", ...}.',
				itemIndex,
			);
		return {
			raw: raw as IDataObject,
			label: (field: string) => `Orders (JSON)[${orderIndex}].${field}`,
		};
	});
}

type ToCheck = FuturesOrderToCheck & { orderIndex: number };

/** Every item checked before the first request; an item is sent whole or not at all. */
export async function readFuturesOrders(
	run: RunContext,
	items: INodeExecutionData[],
	guardrails: FuturesGuardrails,
	generate: boolean,
	outputs: Outputs,
): Promise<{ pending: PendingFuturesOrder[]; reports: Map<PendingFuturesOrder, IDataObject> }> {
	const refuse = (itemIndex: number, error: unknown) => {
		const nodeError = withOutcome(toNodeError(run.node, error), 'rejected');
		if (!run.continueOnFail) throw nodeError;
		outputs[itemIndex] = [{ json: errorItemJson(nodeError), pairedItem: { item: itemIndex } }];
	};
	const ledger = writeSessionOf(run).ledger;
	const toCheck: ToCheck[] = [];
	const taken = new Map<string, { itemIndex: number; whose: string }>();
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const orders = ordersOfItem(run, items, itemIndex).map(({ raw, label }, orderIndex) => {
				const order = validateFuturesOrder(run.node, raw, label, itemIndex);
				checkFuturesGuardrails(run.node, order, guardrails, label, itemIndex);
				claimOrderIds(run.node, taken, order, label('clientOrderId'), itemIndex);
				const recorded = recordedInLedger(ledger, `${itemIndex}.${orderIndex}`, order);
				return { order, label, itemIndex, orderIndex, guardrails, recorded };
			});
			toCheck.push(...orders);
		} catch (error) {
			refuse(itemIndex, error);
		}
	}
	const checked = await checkFuturesOrders(run, toCheck);
	const refused = new Set<number>();
	checked.forEach((result, index) => {
		const { itemIndex } = toCheck[index];
		if (result instanceof Error && !refused.has(itemIndex)) {
			refused.add(itemIndex);
			refuse(itemIndex, result);
		}
	});
	const prefix = generate ? writeSessionOf(run).idPrefix : undefined;
	const pending: PendingFuturesOrder[] = [];
	const reports = new Map<PendingFuturesOrder, IDataObject>();
	checked.forEach((result, index) => {
		const { itemIndex, orderIndex } = toCheck[index];
		if (result instanceof Error || refused.has(itemIndex)) return;
		const one = pendingFuturesOrder(
			ledger,
			`${itemIndex}.${orderIndex}`,
			{ order: result.order, orderIndex, given: result.given },
			itemIndex,
			prefix,
		);
		if (Object.keys(result.report).length > 0) reports.set(one, result.report);
		pending.push(one);
	});
	return { pending, reports };
}
