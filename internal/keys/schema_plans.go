package keys

// plansSchema is migration 4: the plans, kept in the store so that every
// replica grants the same (plans_store.go). A change bumps the keys'
// change counter, which every replica's Cache follows.
var plansSchema = []string{
	`CREATE TABLE nodegate_plans (name TEXT PRIMARY KEY, definition TEXT NOT NULL)`,
}
