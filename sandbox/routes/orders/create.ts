/**
 * Creating one order: POST /api/v1/spot/new/order, the unified POST /api/v1.1/spot/order (a MARKET
 * order by amount on either side, IOC and FOK for LIMIT), and /api/v1/spot/orderTest (every check,
 * nothing placed). A batch of orders: batch.ts.
 */
import { OrderFail, fieldError } from '../../errors';
import { mediaType } from '../../http';
import type { OrderInput } from '../../orders/state';
import { styleOf } from '../../orders/views';
import { json, type Resp } from '../../response';
import type { Authed, RequestContext, Services } from '../route';

function placeSingle(
	ctx: RequestContext,
	auth: Authed,
	services: Services,
	test: boolean,
	unified = false,
): Resp {
	const { engine, behaviour } = services;
	if (ctx.body !== '' && mediaType(ctx.req) !== 'application/x-www-form-urlencoded') {
		throw fieldError(
			'Content-Type',
			'send order parameters in the query string or an application/x-www-form-urlencoded body',
		);
	}
	const input: OrderInput = {};
	for (const [k, v] of auth.allParams) input[k] = v;
	if (test) checkTestParams(input);
	try {
		const placed = engine.placeOrder(auth.key, input, 'single', {
			test,
			style: styleOf(behaviour),
			unified,
		});
		return json(200, test ? {} : placed);
	} catch (e) {
		if (e instanceof OrderFail) throw e.toApiError();
		throw e;
	}
}

/**
 * The order-test endpoint's own parameters, before the order's checks: the exchange documents
 * `quantity` as required and no `amount` (docs/api.md §4.12), so an order by amount is refused
 * with the code of a missing or invalid field rather than tested as something else.
 */
function checkTestParams(input: OrderInput): void {
	if (input.amount !== undefined)
		throw fieldError('amount', 'the order-test endpoint takes quantity, not amount');
	if (input.quantity === undefined || input.quantity === '') throw fieldError('quantity');
}

/** POST /api/v1/spot/new/order: params in the query, a form body, or both. */
export function singleOrder(ctx: RequestContext, auth: Authed, services: Services): Resp {
	return placeSingle(ctx, auth, services, false);
}

/**
 * POST /api/v1.1/spot/order (the family's "Create Order v1.1"): the parameters as the v1 endpoint
 * takes them, and the same answer; quantity or amount for a MARKET order on either side.
 */
export function unifiedOrder(ctx: RequestContext, auth: Authed, services: Services): Resp {
	return placeSingle(ctx, auth, services, false, true);
}

/**
 * POST /api/v1/spot/orderTest: `quantity` required and no `amount` (0001), then every check of a
 * single order (balance and client order id too); nothing placed; answers {}.
 */
export function testOrder(ctx: RequestContext, auth: Authed, services: Services): Resp {
	return placeSingle(ctx, auth, services, true);
}
