/** The widget API's answers as the widget names them: the generated types of the OpenAPI document (../kit/api-types.ts). */
import type { Answer, Schema } from '../kit/api-types.js';

export type QrInfo = Schema<'QrInfo'>;
export type ExchangeAnswer = Answer<'exchangeQrToken'>;
export type ProductList = Schema<'WidgetProductList'>;
/** An entry of the product list: DIMENSIONAL ones (`poly_products`) add their unit and decimals. */
export type ProductSummary = Schema<'WidgetProduct'> & Partial<Pick<Schema<'WidgetPolyProduct'>, 'unit' | 'decimals'>>;
export type ProductDetail = Schema<'ProductDetail'>;
export type LocationStock = Schema<'LocationStock'>;
export type Batch = Schema<'WidgetBatch'>;
export type Location = Schema<'WidgetLocation'>;
export type Item = Schema<'WidgetItem'>;
export type WorkOrder = Schema<'WidgetWorkOrder'>;
export type LocationInventory = Schema<'WidgetLocationInventory'>;
export type TransactionAnswer = Answer<'widgetBookTransaction'>;
export type MoveAnswer = Answer<'widgetMoveStock'>;
export type TransferAnswer = Answer<'widgetTransferStock'>;
export type CreatedLocation = Answer<'widgetCreateLocation'>;
export type QrTransition = Answer<'configureQrCode'>;
