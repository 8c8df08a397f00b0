import type { IDataObject } from 'n8n-workflow';

import {
	compareDecimals,
	formatDecimal,
	isMultipleOf,
	parseDecimal,
	roundToStep,
	type Decimal,
} from '../helpers/decimals';
import type { Contract } from './contracts';
import { PRICE_FIELDS, type FuturesOrder } from './futuresOrderRules';

// Fit to Contract Rules never rounds the way that makes an order bigger or dearer.

export interface ContractRules {
	symbol: string;
	status: string;
	tickSize: string;
	stepSize: string;
	minQty: string;
	maxQty: string;
	marketOrderMinQty: string;
	marketOrderMaxQty: string;
}

const text = (value: unknown) =>
	typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';

export function contractRules(contract: Contract): ContractRules {
	const filters = Array.isArray(contract.filters) ? (contract.filters as IDataObject[]) : [];
	const filter = (type: string) => filters.find((one) => one?.filterType === type) ?? {};
	const lot = filter('LOT_SIZE');
	return {
		symbol: contract.symbol,
		status: text(contract.status),
		tickSize: text(filter('PRICE_FILTER').tickSize),
		stepSize: text(lot.stepSize),
		minQty: text(lot.minQty),
		maxQty: text(lot.maxQty),
		marketOrderMinQty: text(lot.marketOrderMinQty),
		marketOrderMaxQty: text(lot.marketOrderMaxQty),
	};
}

export interface FittedValue extends IDataObject {
	field: string;
	given: string;
	sent: string;
	rule: string;
}

type ContractRulesCheck =
	| { ok: true; order: FuturesOrder; fitted: FittedValue[] }
	| { ok: false; field: string; problem: string; fix: string };

/** A filter value as a limit: "0", empty or unreadable is none. */
function limitOf(value: string): Decimal | undefined {
	const parsed = value === '' ? undefined : parseDecimal(value);
	return parsed === undefined || parsed.units <= 0n ? undefined : parsed;
}

const FIT_HINT = 'or turn on the guardrail Fit to Contract Rules to have the node round it';

/** Which way a field is rounded: never toward a bigger or dearer order, nor a later stop loss. */
function direction(field: string, side: FuturesOrder['side']): 'down' | 'up' {
	if (field.startsWith('tp')) return 'down';
	if (field.startsWith('sl')) return 'up';
	return side === 'BUY' ? 'down' : 'up';
}

type Problem = Extract<ContractRulesCheck, { ok: false }>;

function onStep(
	order: FuturesOrder,
	fitted: FittedValue[],
	field: string,
	stepText: string,
	name: string,
	fit: boolean,
	way: 'down' | 'up',
): Problem | undefined {
	const step = limitOf(stepText);
	const given = order[field] as string;
	const value = parseDecimal(given)!;
	if (step === undefined || isMultipleOf(value, step)) return undefined;
	const [below, above] = [roundToStep(value, step, 'down'), roundToStep(value, step, 'up')];
	const rounded = way === 'down' ? below : above;
	if (!fit || rounded.units === 0n) {
		const nearest =
			below.units === 0n
				? `the smallest is ${formatDecimal(above)}`
				: `nearest: ${formatDecimal(below)} and ${formatDecimal(above)}`;
		return {
			ok: false,
			field,
			problem: `${given} is not a multiple of the ${name} of ${order.symbol}, ${stepText} (${nearest})`,
			fix: fit
				? `Nothing was sent: it rounds down to 0. Use at least ${formatDecimal(above)}.`
				: `Nothing was sent. Use a multiple of ${stepText}, ${FIT_HINT}.`,
		};
	}
	order[field] = formatDecimal(rounded);
	fitted.push({ field, given, sent: order[field] as string, rule: `${name} ${stepText}` });
	return undefined;
}

function sizeLimits(order: FuturesOrder, rules: ContractRules): Problem | undefined {
	if (order.baseQty === undefined) return undefined;
	const market = order.type === 'MARKET' || (order.type === 'STOP' && order.price === undefined);
	const [minText, maxText] = market
		? [rules.marketOrderMinQty || rules.minQty, rules.marketOrderMaxQty || rules.maxQty]
		: [rules.minQty, rules.maxQty];
	const value = parseDecimal(order.baseQty)!;
	const [min, max] = [limitOf(minText), limitOf(maxText)];
	const kind = market ? 'market order quantity' : 'quantity';
	if (min !== undefined && compareDecimals(value, min) < 0)
		return {
			ok: false,
			field: 'baseQty',
			problem: `${order.baseQty} is below the minimum ${kind} of ${order.symbol}, ${minText}`,
			fix: `Nothing was sent. Give at least ${minText}; rounding cannot fix this.`,
		};
	if (max !== undefined && compareDecimals(value, max) > 0)
		return {
			ok: false,
			field: 'baseQty',
			problem: `${order.baseQty} is above the maximum ${kind} of ${order.symbol}, ${maxText}`,
			fix: `Nothing was sent. Give at most ${maxText}, or split the order.`,
		};
	return undefined;
}

/** `rules` undefined: the exchange does not list it. A quote quantity is the exchange's to convert. */
export function checkContractRules(
	order: FuturesOrder,
	rules: ContractRules | undefined,
	fit: boolean,
): ContractRulesCheck {
	if (rules === undefined)
		return {
			ok: false,
			field: 'symbol',
			problem: `the exchange does not list the futures contract ${order.symbol}`,
			fix: 'Nothing was sent. Pick the contract from the Symbol list (Futures › Get Funding Rate with Symbol empty lists them all).',
		};
	if (rules.status !== 'TRADING')
		return {
			ok: false,
			field: 'symbol',
			problem: `${order.symbol} is not trading (status ${rules.status || 'unknown'})`,
			fix: 'Nothing was sent. Try again once the contract is open for trading.',
		};
	const sent: FuturesOrder = { ...order };
	const fitted: FittedValue[] = [];
	for (const field of PRICE_FIELDS) {
		if (sent[field] === undefined) continue;
		const way = direction(field, sent.side);
		const problem = onStep(sent, fitted, field, rules.tickSize, 'tick size', fit, way);
		if (problem !== undefined) return problem;
	}
	if (sent.baseQty !== undefined) {
		const problem = onStep(sent, fitted, 'baseQty', rules.stepSize, 'step size', fit, 'down');
		if (problem !== undefined) return problem;
	}
	return sizeLimits(sent, rules) ?? { ok: true, order: sent, fitted };
}

export function percentOf(quantity: string, percent: string, step: string): string {
	const product = parseDecimal(quantity)!;
	const share = parseDecimal(percent)!;
	const value: Decimal = {
		units: product.units * share.units,
		scale: product.scale + share.scale + 2,
	};
	const stepValue = limitOf(step);
	return formatDecimal(stepValue === undefined ? value : roundToStep(value, stepValue, 'down'));
}

/** The smallest percent of `size` (to 0.01, as the Percent field takes) that reaches `min`. */
export function smallestPercent(size: string, min: string): string {
	const [whole, least] = [parseDecimal(size)!, parseDecimal(min)!];
	// min × 100 / size in hundredths of a percent, rounded up.
	const numerator = least.units * 10n ** BigInt(whole.scale + 4);
	const denominator = whole.units * 10n ** BigInt(least.scale);
	return formatDecimal({ units: (numerator + denominator - 1n) / denominator, scale: 2 });
}
