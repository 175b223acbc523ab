import { Column, DataType, Default, Model, PrimaryKey } from 'sequelize-typescript';

/** What every record of a company has: a UUID key, its company (every query filters on it), timestamps. */
export abstract class CompanyOwnedModel extends Model {
  @PrimaryKey
  @Default(DataType.UUIDV4)
  @Column(DataType.UUID)
  declare id: string;

  @Column(DataType.UUID)
  declare companyId: string;

  declare readonly createdAt: Date;
  declare readonly updatedAt: Date;
}
