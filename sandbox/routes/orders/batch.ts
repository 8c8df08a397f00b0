/**
 * POST /api/v1/spot/batchOrders and the unified POST /api/v1.1/spot/batchOrders (each order by the
 * rules of its single endpoint): a JSON array of at most 20 orders of one symbol, each validated
 * and placed on its own; the answer lists one entry per order, shaped by the batch behaviours and
 * the inline batch faults.
 */
import { CODES, intCode } from '../../codes';
import { MAX_BATCH_ORDERS } from '../../constants';
import { OrderFail, apiError, fieldError } from '../../errors';
import { mediaType } from '../../http';
import { JsonNumber, parseJson, type JsonValue } from '../../json';
import type { OrderInput } from '../../orders/state';
import { styleOf } from '../../orders/views';
import { json, type Resp } from '../../response';
import type { Authed, RequestContext, Services } from '../route';

function isObject(v: JsonValue): v is { [key: string]: JsonValue } {
	return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);
}

/** The batch's own checks: a JSON body holding a non-empty array of at most 20 orders of one symbol. */
function parseBatch(ctx: RequestContext): JsonValue[] {
	if (mediaType(ctx.req) !== 'application/json') {
		throw fieldError('Content-Type', 'a batch is an application/json body');
	}
	let parsed: JsonValue;
	try {
		parsed = parseJson(ctx.body);
	} catch {
		throw fieldError('body', 'not valid JSON; expected a JSON array of orders');
	}
	if (!Array.isArray(parsed)) throw fieldError('body', 'expected a JSON array of orders');
	if (parsed.length === 0) throw fieldError('body', 'the batch is empty');
	if (parsed.length > MAX_BATCH_ORDERS)
		throw apiError(CODES.batchTooLarge, `at most ${MAX_BATCH_ORDERS} orders per batch`);
	const symbols = new Set<string>();
	for (const o of parsed) {
		if (isObject(o) && typeof o.symbol === 'string' && o.symbol !== '') symbols.add(o.symbol);
	}
	if (symbols.size > 1)
		throw fieldError('symbol', 'all orders of a batch must have the same symbol');
	return parsed;
}

/** POST /api/v1/spot/batchOrders: each order validated and placed on its own, in request order. */
export function batchOrders(ctx: RequestContext, auth: Authed, services: Services): Resp {
	return placeBatch(ctx, auth, services, false);
}

/** POST /api/v1.1/spot/batchOrders: as batchOrders, each order by the v1.1 rules. */
export function unifiedBatchOrders(ctx: RequestContext, auth: Authed, services: Services): Resp {
	return placeBatch(ctx, auth, services, true);
}

function placeBatch(ctx: RequestContext, auth: Authed, services: Services, unified: boolean): Resp {
	const parsed = parseBatch(ctx);
	const { behaviour, engine } = services;
	const stringCodes = behaviour.batchEntryCodes === 'string';
	const entryCode = (code: string): number | string => (stringCodes ? code : intCode(code));
	const okCode = stringCodes ? '0000' : 0;
	const style = styleOf(behaviour);
	let result: Array<Record<string, unknown> | null> = parsed.map((o) => {
		if (!isObject(o)) {
			return {
				code: entryCode(CODES.invalidField.code),
				msg: "Create order failed: Required field 'order' missing or invalid (must be a JSON object)",
			};
		}
		try {
			const order = engine.placeOrder(auth.key, o as OrderInput, 'batch', { style, unified });
			return { code: okCode, msg: 'success', order };
		} catch (e) {
			if (e instanceof OrderFail) return { code: entryCode(e.stringCode), msg: e.batchMessage };
			throw e;
		}
	});
	const first = parsed[0];
	const stpMode =
		isObject(first) && (first.stpMode === 'EXPIRE_TAKER' || first.stpMode === 'EXPIRE_MAKER')
			? first.stpMode
			: 'EXPIRE_TAKER';
	let code: number | string = behaviour.batchSuccessCode;
	switch (ctx.fault?.kind) {
		case 'batchReorder':
			result = [...result].reverse();
			break;
		case 'batchCode0000':
			code = '0000';
			break;
		case 'batchTopCodeNonZero':
			code = CODES.unknownError.code;
			break;
		case 'batchNullEntry':
			result = [...result.slice(0, -1), null];
			break;
		case 'batchEntryNoCode':
			result = result.map((e) => {
				if (e === null) return e;
				const withoutCode: Record<string, unknown> = { ...e };
				delete withoutCode.code;
				return withoutCode;
			});
			break;
		default:
			break;
	}
	return json(200, { code, result, concentration: '', stpMode });
}
