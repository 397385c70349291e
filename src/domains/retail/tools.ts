/**
 * The retail agent tools (specs/retail.md §2–3), in upstream's presentation
 * order. Arguments arrive unvalidated, exactly as upstream receives them, so
 * every check below happens in upstream's order with upstream's texts; a
 * write copies only the entries it changes (copy-on-write DB).
 */
import { pyDumps, pyEquals, pyRound, pyStr } from "../../core/py-json.ts";
import type { DbState } from "../../env/db-state.ts";
import { modelResult, validate } from "../../env/model.ts";
import { param, type ToolDef, ToolError } from "../../env/toolkit.ts";
import { calculate, transferToHumanAgents } from "../shared-tools.ts";
import {
  type AddressRecord,
  Order,
  type OrderItemRecord,
  type OrderPaymentRecord,
  type OrderRecord,
  type PaymentMethodRecord,
  Product,
  type ProductRecord,
  type RetailRoot,
  storedFloat,
  User,
  UserAddress,
  type UserRecord,
  Variant,
  type VariantRecord,
} from "./data-model.ts";
import {
  getOrRaise,
  hasKey,
  inStringSet,
  pyCount,
  pyIterate,
  pyLen,
  pyLower,
  pySortedStrings,
} from "../python-ops.ts";

const root = (db: DbState<any>) => db.root as RetailRoot;

// ---------------------------------------------------------------------------
// Lookups (§2)

function getOrder(db: DbState<any>, orderId: unknown): OrderRecord {
  return getOrRaise(root(db).orders, orderId, "Order not found");
}

function getUser(db: DbState<any>, userId: unknown): UserRecord {
  return getOrRaise(root(db).users, userId, "User not found");
}

function getProduct(db: DbState<any>, productId: unknown): ProductRecord {
  return getOrRaise(root(db).products, productId, "Product not found");
}

function getVariant(db: DbState<any>, productId: unknown, itemId: unknown): VariantRecord {
  return getOrRaise(getProduct(db, productId).variants, itemId, "Variant not found");
}

function getPaymentMethod(db: DbState<any>, userId: unknown, paymentMethodId: unknown): PaymentMethodRecord {
  return getOrRaise(getUser(db, userId).payment_methods, paymentMethodId, "Payment method not found");
}

/** The payment method as a private copy inside the user's record, so its balance may change. */
function mutablePaymentMethod(
  db: DbState<any>,
  userId: string,
  paymentMethodId: string,
): PaymentMethodRecord {
  return root(db).users.mutate(userId).payment_methods.get(paymentMethodId)!;
}

/** The order as a private copy, so it may change in place. */
function mutableOrder(db: DbState<any>, orderId: string): OrderRecord {
  return root(db).orders.mutate(orderId);
}

const isGiftCard = (method: PaymentMethodRecord) => method.source === "gift_card";
const balanceOf = (method: PaymentMethodRecord) => method.balance ?? 0;

/** Python `round(x, 2)` keeping the sign of zero. */
function round2(x: number): number {
  return x === 0 || !Number.isFinite(x) ? x : pyRound(x, 2);
}

/** The item-count check of exchange/modify/return: a requested id may not occur more often than in the order. */
function checkItemCounts(order: OrderRecord, itemIds: unknown, message: (itemId: unknown) => string): void {
  const orderItemIds = order.items.map((item) => item.item_id);
  for (const itemId of pyIterate(itemIds)) {
    if (pyCount(itemIds, itemId) > pyCount(orderItemIds, itemId)) throw new ToolError(message(itemId));
  }
}

/** `zip(a, b)` of two iterables. */
function zipPairs(a: unknown, b: unknown): [unknown, unknown][] {
  const left = pyIterate(a);
  const right = pyIterate(b);
  const n = Math.min(left.length, right.length);
  return Array.from({ length: n }, (_, i) => [left[i], right[i]]);
}

function firstItemWithId(items: readonly OrderItemRecord[], itemId: unknown): OrderItemRecord {
  const item = items.find((candidate) => candidate.item_id === itemId);
  if (!item) throw new ToolError(`Item ${pyStr(itemId)} not found`);
  return item;
}

/** `UserAddress(...)` built from tool arguments (pydantic validation errors on non-strings). */
function newAddress(args: Record<string, unknown>): AddressRecord {
  return validate<AddressRecord>(UserAddress, {
    address1: args.address1,
    address2: args.address2,
    city: args.city,
    country: args.country,
    state: args.state,
    zip: args.zip,
  });
}

const orderResult = (order: OrderRecord) => modelResult(Order, order);

// ---------------------------------------------------------------------------
// Parameters

const str = { type: "string" };
const strList = { type: "array", items: { type: "string" } };
const orderIdParam = param(
  "order_id",
  str,
  "The order id, such as '#W0000000'. Order ids start with '#', so include it.",
);
const paymentMethodParam = (what: string) =>
  param(
    "payment_method_id",
    str,
    `The id of the payment method ${what}, such as 'gift_card_0000000' or 'credit_card_0000000'. ` +
      "It must be one of the user's saved payment methods.",
  );
const addressParams = [
  param("address1", str, "First address line, such as '123 Main St'."),
  param("address2", str, "Second address line, such as 'Apt 1', or an empty string."),
  param("city", str, "City, such as 'San Francisco'."),
  param("state", str, "State, such as 'CA'."),
  param("country", str, "Country, such as 'USA'."),
  param("zip", str, "Zip code, such as '12345'."),
];
const confirmFirst =
  "Before calling it, describe the change to the user and get an explicit confirmation (yes) to go ahead.";

// ---------------------------------------------------------------------------
// Tools

/** The retail agent toolkit, in upstream's method order. */
export const retailTools: ToolDef[] = [
  calculate,
  {
    name: "cancel_pending_order",
    kind: "write",
    description:
      "Cancel an order that is still pending.\n\n" +
      `${confirmFirst} The money goes back to the original payment methods: at once for gift cards, ` +
      "within 5 to 7 business days otherwise.",
    params: [
      orderIdParam,
      param("reason", str, "Why the order is cancelled: either 'no longer needed' or 'ordered by mistake'."),
    ],
    run: ({ db }, args) => {
      const order = getOrder(db, args.order_id);
      if (order.status !== "pending") throw new ToolError("Non-pending order cannot be cancelled");
      if (!inStringSet(args.reason, ["no longer needed", "ordered by mistake"])) {
        throw new ToolError("Invalid reason");
      }
      const refunds: OrderPaymentRecord[] = [];
      for (const payment of order.payment_history) {
        refunds.push({
          transaction_type: "refund",
          amount: payment.amount,
          payment_method_id: payment.payment_method_id,
        });
        const user = getUser(db, order.user_id);
        const method = getPaymentMethod(db, user.user_id, payment.payment_method_id);
        if (isGiftCard(method)) {
          const writable = mutablePaymentMethod(db, user.user_id, payment.payment_method_id);
          writable.balance = round2(balanceOf(writable) + payment.amount);
        }
      }
      const target = mutableOrder(db, order.order_id);
      target.status = "cancelled";
      target.cancel_reason = args.reason as string;
      target.payment_history.push(...refunds);
      return orderResult(target);
    },
  },
  {
    name: "exchange_delivered_order_items",
    kind: "write",
    description:
      "Exchange items of a delivered order for other variants of the same products.\n\n" +
      "A product can only be exchanged for another variant of itself, and a delivered order can be " +
      "exchanged or returned only once, so collect every item to exchange first. " +
      confirmFirst,
    params: [
      orderIdParam,
      param(
        "item_ids",
        strList,
        "Ids of the items to exchange, such as ['1008292230']. The same id may appear more than once.",
      ),
      param(
        "new_item_ids",
        strList,
        "Ids of the replacement items, such as ['1008292230'], in the same order as item_ids; " +
          "each must be a variant of the same product.",
      ),
      paymentMethodParam("that pays or receives the price difference"),
    ],
    run: ({ db }, args) => {
      const order = getOrder(db, args.order_id);
      if (order.status !== "delivered") throw new ToolError("Non-delivered order cannot be exchanged");
      checkItemCounts(order, args.item_ids, (id) => `Number of ${pyStr(id)} not found.`);
      if (pyLen(args.item_ids) !== pyLen(args.new_item_ids)) {
        throw new ToolError("The number of items to be exchanged should match.");
      }
      // Python starts from the integer 0; it only becomes a float once a pair is added.
      let difference = 0;
      let anyPair = false;
      for (const [oldId, newId] of zipPairs(args.item_ids, args.new_item_ids)) {
        const item = firstItemWithId(order.items, oldId);
        const variant = getVariant(db, item.product_id, newId);
        if (!variant.available) throw new ToolError(`New item ${pyStr(newId)} not found or available`);
        difference = difference + (variant.price - item.price);
        anyPair = true;
      }
      difference = round2(difference);
      const method = getPaymentMethod(db, order.user_id, args.payment_method_id);
      if (isGiftCard(method) && balanceOf(method) < difference) {
        throw new ToolError("Insufficient gift card balance to pay for the price difference");
      }
      const target = mutableOrder(db, order.order_id);
      target.status = "exchange requested";
      target.exchange_items = pySortedStrings(args.item_ids);
      target.exchange_new_items = pySortedStrings(args.new_item_ids);
      target.exchange_payment_method_id = args.payment_method_id as string;
      target.exchange_price_difference = anyPair ? storedFloat(difference) : 0;
      return orderResult(target);
    },
  },
  {
    name: "find_user_id_by_name_zip",
    kind: "read",
    description:
      "Find a user's id from their first name, last name and zip code.\n\n" +
      "Look users up by email when possible; use this only when the email is unknown or the lookup " +
      "by email failed.",
    params: [
      param("first_name", str, "The user's first name, such as 'John'."),
      param("last_name", str, "The user's last name, such as 'Doe'."),
      param("zip", str, "The user's zip code, such as '12345'."),
    ],
    run: ({ db }, args) => {
      for (const [userId, user] of root(db).users.entries()) {
        if (
          pyLower(user.name.first_name) === pyLower(args.first_name) &&
          pyLower(user.name.last_name) === pyLower(args.last_name) &&
          user.address.zip === args.zip
        ) {
          return userId;
        }
      }
      throw new ToolError("User not found");
    },
  },
  {
    name: "find_user_id_by_email",
    kind: "read",
    description: "Find a user's id from their email address.",
    params: [param("email", str, "The user's email, such as 'something@example.com'.")],
    run: ({ db }, args) => {
      for (const [userId, user] of root(db).users.entries()) {
        if (pyLower(user.email) === pyLower(args.email)) return userId;
      }
      throw new ToolError("User not found");
    },
  },
  {
    name: "get_order_details",
    kind: "read",
    description: "Show the status and details of an order.",
    params: [orderIdParam],
    run: ({ db }, args) => orderResult(getOrder(db, args.order_id)),
  },
  {
    name: "get_product_details",
    kind: "read",
    description: "Show the inventory details of a product, with all its variants.",
    params: [
      param(
        "product_id",
        str,
        "The product id, such as '6086499569'. Product ids are not the same as item ids.",
      ),
    ],
    run: ({ db }, args) => modelResult(Product, getProduct(db, args.product_id)),
  },
  {
    name: "get_item_details",
    kind: "read",
    description: "Show the inventory details of a single item (one variant of a product).",
    params: [param("item_id", str, "The item id, such as '1008292230'.")],
    run: ({ db }, args) => {
      for (const product of root(db).products.values()) {
        if (hasKey(product.variants, args.item_id)) {
          return modelResult(Variant, product.variants.get(args.item_id));
        }
      }
      throw new ToolError("Item not found");
    },
  },
  {
    name: "get_user_details",
    kind: "read",
    description: "Show a user's details, including their orders.",
    params: [param("user_id", str, "The user id, such as 'sara_doe_496'.")],
    run: ({ db }, args) => modelResult(User, getUser(db, args.user_id)),
  },
  {
    name: "list_all_product_types",
    kind: "read",
    description:
      "List the name and product id of every product type in the store.\n\n" +
      "There are 50 product types; each has variants (items) with different options such as color and size.",
    params: [],
    run: ({ db }) => {
      const names = new Map<string, string>();
      for (const product of root(db).products.values()) names.set(product.name, product.product_id);
      return pyDumps(names, { sortKeys: true });
    },
  },
  {
    name: "modify_pending_order_address",
    kind: "write",
    description: `Change the shipping address of a pending order.\n\n${confirmFirst}`,
    params: [orderIdParam, ...addressParams],
    run: ({ db }, args) => {
      const order = getOrder(db, args.order_id);
      if (!order.status.includes("pending")) throw new ToolError("Non-pending order cannot be modified");
      const address = newAddress(args);
      const target = mutableOrder(db, order.order_id);
      target.address = address;
      return orderResult(target);
    },
  },
  {
    name: "modify_pending_order_items",
    kind: "write",
    description:
      "Change items of a pending order to other variants of the same products.\n\n" +
      "It can be called only once per pending order, so collect every item to change first. " +
      confirmFirst,
    params: [
      orderIdParam,
      param(
        "item_ids",
        strList,
        "Ids of the items to change, such as ['1008292230']. The same id may appear more than once.",
      ),
      param(
        "new_item_ids",
        strList,
        "Ids of the new items, such as ['1008292230'], in the same order as item_ids; " +
          "each must be a variant of the same product.",
      ),
      paymentMethodParam("that pays or receives the price difference"),
    ],
    run: ({ db }, args) => {
      const order = getOrder(db, args.order_id);
      if (order.status !== "pending") throw new ToolError("Non-pending order cannot be modified");
      checkItemCounts(order, args.item_ids, (id) => `${pyStr(id)} not found`);
      if (pyLen(args.item_ids) !== pyLen(args.new_item_ids)) {
        throw new ToolError("The number of items to be exchanged should match");
      }
      const pairs = zipPairs(args.item_ids, args.new_item_ids);
      let difference = 0;
      let lastVariant: VariantRecord | undefined;
      for (const [oldId, newId] of pairs) {
        if (pyEquals(oldId, newId))
          throw new ToolError("The new item id should be different from the old item id");
        const item = firstItemWithId(order.items, oldId);
        const variant = getVariant(db, item.product_id, newId);
        if (!variant.available) throw new ToolError(`New item ${pyStr(newId)} not found or available`);
        difference += variant.price - item.price;
        lastVariant = variant;
      }
      const method = getPaymentMethod(db, order.user_id, args.payment_method_id);
      if (isGiftCard(method) && balanceOf(method) < difference) {
        throw new ToolError("Insufficient gift card balance to pay for the new item");
      }
      const paymentMethodId = args.payment_method_id as string;
      const target = mutableOrder(db, order.order_id);
      target.payment_history.push({
        transaction_type: difference > 0 ? "payment" : "refund",
        amount: Math.abs(difference),
        payment_method_id: paymentMethodId,
      });
      if (isGiftCard(method)) {
        const writable = mutablePaymentMethod(db, order.user_id, paymentMethodId);
        writable.balance = round2(balanceOf(writable) - difference);
      }
      for (const [oldId, newId] of pairs) {
        const item = firstItemWithId(target.items, oldId);
        // Upstream copies the last pair's variant into every modified item (a bug we keep).
        const variant = lastVariant!;
        item.item_id = newId as string;
        item.price = variant.price;
        item.options = variant.options;
      }
      target.status = "pending (item modified)";
      return orderResult(target);
    },
  },
  {
    name: "modify_pending_order_payment",
    kind: "write",
    description: `Change the payment method of a pending order.\n\n${confirmFirst}`,
    params: [orderIdParam, paymentMethodParam("to pay with instead")],
    run: ({ db }, args) => {
      const order = getOrder(db, args.order_id);
      if (!order.status.includes("pending")) throw new ToolError("Non-pending order cannot be modified");
      const method = getPaymentMethod(db, order.user_id, args.payment_method_id);
      const history = order.payment_history;
      if (history.length !== 1 || history[0]!.transaction_type !== "payment") {
        throw new ToolError("There should be exactly one payment for a pending order");
      }
      const original = history[0]!;
      if (original.payment_method_id === args.payment_method_id) {
        throw new ToolError("The new payment method should be different from the current one");
      }
      const amount = original.amount;
      if (isGiftCard(method) && balanceOf(method) < amount) {
        throw new ToolError("Insufficient gift card balance to pay for the order");
      }
      const newId = args.payment_method_id as string;
      const target = mutableOrder(db, order.order_id);
      target.payment_history.push(
        { transaction_type: "payment", amount, payment_method_id: newId },
        { transaction_type: "refund", amount, payment_method_id: original.payment_method_id },
      );
      if (isGiftCard(method)) {
        const writable = mutablePaymentMethod(db, order.user_id, newId);
        writable.balance = round2(balanceOf(writable) - amount);
      }
      const oldMethod = getPaymentMethod(db, order.user_id, original.payment_method_id);
      if (isGiftCard(oldMethod)) {
        const writable = mutablePaymentMethod(db, order.user_id, original.payment_method_id);
        writable.balance = round2(balanceOf(writable) + amount);
      }
      return orderResult(target);
    },
  },
  {
    name: "modify_user_address",
    kind: "write",
    description: `Change a user's default address.\n\n${confirmFirst}`,
    params: [param("user_id", str, "The user id, such as 'sara_doe_496'."), ...addressParams],
    run: ({ db }, args) => {
      const user = getUser(db, args.user_id);
      const address = newAddress(args);
      const target = root(db).users.mutate(user.user_id);
      target.address = address;
      return modelResult(User, target);
    },
  },
  {
    name: "return_delivered_order_items",
    kind: "write",
    description:
      "Request the return of items of a delivered order.\n\n" +
      "A delivered order can be exchanged or returned only once, so collect every item to return first. " +
      "The refund goes to the original payment method or to an existing gift card. " +
      confirmFirst,
    params: [
      orderIdParam,
      param(
        "item_ids",
        strList,
        "Ids of the items to return, such as ['1008292230']. The same id may appear more than once.",
      ),
      paymentMethodParam("that receives the refund: the original one or a gift card"),
    ],
    run: ({ db }, args) => {
      const order = getOrder(db, args.order_id);
      if (order.status !== "delivered") throw new ToolError("Non-delivered order cannot be returned");
      const method = getPaymentMethod(db, order.user_id, args.payment_method_id);
      if (!isGiftCard(method)) {
        const first = order.payment_history[0];
        if (!first) throw new ToolError("list index out of range");
        if (args.payment_method_id !== first.payment_method_id) {
          throw new ToolError("Payment method should be the original payment method");
        }
      }
      checkItemCounts(order, args.item_ids, () => "Some item not found");
      const target = mutableOrder(db, order.order_id);
      target.status = "return requested";
      target.return_items = pySortedStrings(args.item_ids);
      target.return_payment_method_id = args.payment_method_id as string;
      return orderResult(target);
    },
  },
  transferToHumanAgents,
];
