import type { AnswerShape, Endpoint } from '../transport';
import { MARKET_TEXT_FIELDS } from '../transport/textFields';

/**
 * Market data (spec §5.1 MARKET_DATA): public, sent with the API key alone, weight 1 (the UAE
 * documentation states none; 1 shares the key's budget with everything else).
 */

const list = (what: string): AnswerShape => ({
	is: 'list',
	otherwise: `The service answered the ${what} request with something other than a list`,
});

const marketRead = (path: string, answer: AnswerShape) =>
	({
		method: 'GET',
		path,
		weight: 1,
		signed: false,
		textFields: MARKET_TEXT_FIELDS,
		answer,
	}) as const satisfies Endpoint;

export const MARKET_ENDPOINTS = {
	tickerPrice: marketRead('/quote/v1/ticker/price', list('price')),
	ticker24h: marketRead('/quote/v1/ticker/24hr', list('24-hour ticker')),
	depth: marketRead('/quote/v1/depth', {
		is: 'object',
		has: { b: 'list', a: 'list' },
		otherwise: 'The service answered the order book request without bid and ask lists',
	}),
	trades: marketRead('/quote/v1/trades', list('recent trades')),
	klines: marketRead('/quote/v1/klines', {
		is: 'rows',
		otherwise:
			'The service answered the candles request with something other than a list of candles',
	}),
} as const satisfies Record<string, Endpoint>;
