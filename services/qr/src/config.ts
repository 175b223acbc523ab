/** The QR service's own settings (besides the common ones; see docs/operations/configuration.md). */
import Joi from 'joi';

export interface QrSettings {
  /** Signs the one-time redirect tokens of `/go/<code>/`. */
  QR_TOKEN_SECRET: string;
}

export const qrEnv: Record<keyof QrSettings, Joi.Schema> = {
  QR_TOKEN_SECRET: Joi.string().min(32).required(),
};

export interface QrConfig extends QrSettings {
  PUBLIC_BASE_URL: string;
}

/** Redirect tokens live about ten minutes (docs/decisions/0002-qr-scan-flow.md); a scan key's lifetime is a company setting (docs/api/scanning.md). */
export const REDIRECT_TOKEN_SECONDS = 600;
