/**
 * The retail data model (`RetailDB`, specs/retail.md §1): products with their
 * variants, users with payment methods, and orders. Dicts are `Map`s so that
 * integer-like product and item ids keep file order.
 */
import { PyFloat } from "../../core/py-json.ts";
import type { CowMap } from "../../env/db-state.ts";
import { type ModelTy, t, type Ty } from "../../env/model.ts";

/** A sellable variant of a product (an "item"). */
export const Variant = t.model("Variant", {
  item_id: t.str(),
  options: t.dict(t.str()),
  available: t.bool(),
  price: t.float(),
});

/** A product and its variants keyed by item id. */
export const Product = t.model("Product", {
  name: t.str(),
  product_id: t.str(),
  variants: t.dict(Variant),
});

/** A user's or an order's postal address. */
export const UserAddress = t.model("UserAddress", {
  address1: t.str(),
  address2: t.str(),
  city: t.str(),
  country: t.str(),
  state: t.str(),
  zip: t.str(),
});

const UserName = t.model("UserName", { first_name: t.str(), last_name: t.str() });

/** The three payment-method shapes, told apart by `source`. */
export const PaymentMethod = t.union("source", {
  credit_card: t.model("CreditCard", {
    source: t.literal("credit_card"),
    id: t.str(),
    brand: t.str(),
    last_four: t.str(),
  }),
  gift_card: t.model("GiftCard", { source: t.literal("gift_card"), id: t.str(), balance: t.float() }),
  paypal: t.model("Paypal", { source: t.literal("paypal"), id: t.str() }),
});

/** A customer. */
export const User = t.model("User", {
  user_id: t.str(),
  name: UserName,
  address: UserAddress,
  email: t.str(),
  payment_methods: t.dict(PaymentMethod),
  orders: t.list(t.str()),
});

/** One line of an order. */
export const OrderItem = t.model("OrderItem", {
  name: t.str(),
  product_id: t.str(),
  item_id: t.str(),
  price: t.float(),
  options: t.dict(t.str()),
});

/** A payment or refund recorded on an order. */
export const OrderPayment = t.model("OrderPayment", {
  transaction_type: t.literal("payment", "refund"),
  amount: t.float(),
  payment_method_id: t.str(),
});

const Fulfillment = t.model("OrderFulfillment", {
  tracking_id: t.list(t.str()),
  item_ids: t.list(t.str()),
});

const orderStatus = t.literal(
  "processed",
  "pending",
  "pending (item modified)",
  "delivered",
  "cancelled",
  "exchange requested",
  "return requested",
);

/**
 * Upstream assigns `exchange_price_difference` without validation, so a
 * request with no pairs stores the integer `0` in a float field. The stored
 * model therefore types it `any` and keeps floats boxed (see {@link pyFloat}).
 */
function orderModel(priceDifference: Ty): ModelTy {
  const optionalList = (item: Ty): [Ty, null] => [t.optional(t.list(item)), null];
  return t.model("Order", {
    order_id: t.str(),
    user_id: t.str(),
    address: UserAddress,
    items: t.list(OrderItem),
    status: orderStatus,
    fulfillments: t.list(Fulfillment),
    payment_history: t.list(OrderPayment),
    cancel_reason: [t.optional(t.literal("no longer needed", "ordered by mistake")), null],
    exchange_items: optionalList(t.str()),
    exchange_new_items: optionalList(t.str()),
    exchange_payment_method_id: [t.optional(t.str()), null],
    exchange_price_difference: [priceDifference, null],
    return_items: optionalList(t.str()),
    return_payment_method_id: [t.optional(t.str()), null],
  });
}

/** An order as stored and returned by tools. */
export const Order = orderModel(t.any());

/** The whole database as stored (see {@link orderModel} for the one `any` field). */
export const RetailDb = t.model(
  "RetailDB",
  { products: t.dict(Product), users: t.dict(User), orders: t.dict(Order) },
  "forbid",
);

/** The database as validated when loading the file (the price difference is a float there). */
export const RetailDbFile = t.model(
  "RetailDB",
  {
    products: t.dict(Product),
    users: t.dict(User),
    orders: t.dict(orderModel(t.optional(t.float()))),
  },
  "forbid",
);

/** Boxes an integral float so an `any`-typed field still prints it as `2.0`. */
export function storedFloat(value: number): number | PyFloat {
  return Number.isInteger(value) ? new PyFloat(value) : value;
}

/** A variant record. */
export interface VariantRecord {
  item_id: string;
  options: Map<string, string>;
  available: boolean;
  price: number;
}

/** A product record. */
export interface ProductRecord {
  name: string;
  product_id: string;
  variants: Map<string, VariantRecord>;
}

/** An address record (field order = serialization order). */
export interface AddressRecord {
  address1: string;
  address2: string;
  city: string;
  country: string;
  state: string;
  zip: string;
}

/** A payment-method record; `balance` only on gift cards. */
export interface PaymentMethodRecord {
  source: "credit_card" | "gift_card" | "paypal";
  id: string;
  brand?: string;
  last_four?: string;
  balance?: number;
}

/** A user record. */
export interface UserRecord {
  user_id: string;
  name: { first_name: string; last_name: string };
  address: AddressRecord;
  email: string;
  payment_methods: Map<string, PaymentMethodRecord>;
  orders: string[];
}

/** An order line record. */
export interface OrderItemRecord {
  name: string;
  product_id: string;
  item_id: string;
  price: number;
  options: Map<string, string>;
}

/** A payment-history record. */
export interface OrderPaymentRecord {
  transaction_type: "payment" | "refund";
  amount: number;
  payment_method_id: string;
}

/** An order record. */
export interface OrderRecord {
  order_id: string;
  user_id: string;
  address: AddressRecord;
  items: OrderItemRecord[];
  status: string;
  fulfillments: { tracking_id: string[]; item_ids: string[] }[];
  payment_history: OrderPaymentRecord[];
  cancel_reason: string | null;
  exchange_items: string[] | null;
  exchange_new_items: string[] | null;
  exchange_payment_method_id: string | null;
  /** A number, a boxed integral float, or the integer 0 (see {@link orderModel}). */
  exchange_price_difference: number | PyFloat | null;
  return_items: string[] | null;
  return_payment_method_id: string | null;
}

/** The top-level fields of a retail DB state. */
export interface RetailRoot {
  products: CowMap<ProductRecord>;
  users: CowMap<UserRecord>;
  orders: CowMap<OrderRecord>;
}
