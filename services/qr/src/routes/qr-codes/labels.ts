/** Printable labels (the labels work fills this in). */
import { Router } from 'express';
import type { Sequelize } from 'sequelize';
import type { QrConfig } from '../../config';

export function labelsRouter(_sequelize: Sequelize, _config: QrConfig): Router {
  return Router();
}
