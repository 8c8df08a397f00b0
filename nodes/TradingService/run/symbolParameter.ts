import { inputError, symbol as checkSymbol } from '../helpers/validation';
import type { RunContext } from './runContext';

// The Symbol parameter of the operations that read by trading pair (market data, Get Many, Get
// Trades): a typed symbol or a picker's, checked before any request.

/** The Symbol of an operation that reads one trading pair or all: empty means all. */
export function optionalSymbol(run: RunContext, itemIndex: number): string | undefined {
	const value = run.parameter('symbol', itemIndex, '');
	if (value === '' || value === undefined || value === null) return undefined;
	return checkSymbol(run.node, 'Symbol', value, itemIndex);
}

/** The Symbol of an operation that reads one trading pair: required. */
export function requiredSymbol(run: RunContext, itemIndex: number): string {
	const symbol = optionalSymbol(run, itemIndex);
	if (symbol === undefined) {
		throw inputError(
			run.node,
			'Symbol',
			'is empty',
			'Enter a trading pair in upper case without separator, e.g. BTCUSDT.',
			itemIndex,
		);
	}
	return symbol;
}
