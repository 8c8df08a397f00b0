/**
 * Which answer fields keep a number as its literal text (the exact JSON parser, answer.ts), so
 * that each is a string in every item, as when the service sends it quoted.
 */

/**
 * Fields whose number is kept as its literal text, whatever its form or size, so that each is a
 * string in every item, as when the service sends it quoted: IDs (spec: long, up to 20 digits) and
 * the decimals the node reads or compares (spec: decimal; an 18-decimal amount sent as a JSON number
 * would otherwise come back rounded, and an order placed as sent would no longer match its answer).
 */
export const TEXT_FIELDS: ReadonlySet<string> = new Set([
	// IDs
	'id',
	'orderId',
	'accountId',
	'userId',
	'lastOrderId',
	'fromAccountId',
	'toAccountId',
	// orders (create, query, batch entries)
	'price',
	'origQty',
	'executedQty',
	'cummulativeQuoteQty',
	'cumulativeQuoteQty',
	'avgPrice',
	'reqAmount',
	'stopPrice',
	'icebergQty',
	'quantity',
	'amount',
	'feeAmount',
	'sumFeeAmount',
	'fee',
	// balances
	'free',
	'locked',
	'total',
	// history records and transfers
	'change',
	'netTransferAmount',
	'fromAccountBalance',
	'toAccountBalance',
]);

/** A fill's IDs and decimals, kept as the text the service sent (the fee object's too). */
export const ACCOUNT_TRADE_TEXT_FIELDS: ReadonlySet<string> = new Set([
	'id',
	'clientOrderId',
	'ticketId',
	'orderId',
	'matchOrderId',
	'accountId',
	'price',
	'qty',
	'commission',
	'time',
	'fee',
	'originFee',
	'feeAmount',
	'makerRebate',
	'hskDeductPrice',
]);

/**
 * Decimal fields of market-data answers (the UAE documentation's one-letter keys and the filters
 * of exchange info): a number there keeps its literal text like any decimal.
 */
export const MARKET_TEXT_FIELDS: ReadonlySet<string> = new Set([
	// tickers and trades: price, quantity, close, high, low, open, bid, ask, volumes
	'p',
	'q',
	'c',
	'h',
	'l',
	'o',
	'b',
	'a',
	'v',
	'qv',
	'bq',
	'aq',
	// exchange info
	'baseAssetPrecision',
	'quotePrecision',
	'quoteAssetPrecision',
	'minPrice',
	'maxPrice',
	'tickSize',
	'minQty',
	'maxQty',
	'stepSize',
	'marketOrderMinQty',
	'marketOrderMaxQty',
	'minNotional',
	'minAmount',
	'maxAmount',
	'minBuyPrice',
	'marketOrderMinAmount',
	'marketOrderMaxAmount',
	'maxSellPrice',
	'buyPriceUpRate',
	'sellPriceDownRate',
	'limitMinPrice',
	'limitMaxPrice',
]);
