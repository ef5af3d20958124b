package keys

// keyTable is a snapshot's active keys, by hash and by id, cut into
// shards so that a change copies the shards it touches, not the table:
// one key changed costs two shards' copies (a few hundred entries at
// 100,000 keys) and the shard arrays (tableShards pointers each), whatever
// the table holds. A published table is never written again; a change
// edits a copy (tableEdit).
type keyTable struct {
	byHash [tableShards]map[Hash]*Key
	byID   [tableShards]map[string]*Key
	n      int // keys in byHash
}

// tableShards is the number of shards of each index.
const tableShards = 1024

// hashShard is the shard of a key hash (its first bytes: uniform).
func hashShard(h Hash) int { return (int(h[0])<<8 | int(h[1])) % tableShards }

// idShard is the shard of a key id (FNV-1a of its text).
func idShard(id string) int {
	x := uint32(2166136261)
	for i := 0; i < len(id); i++ {
		x ^= uint32(id[i])
		x *= 16777619
	}
	return int(x % tableShards)
}

func (t *keyTable) byHashOf(h Hash) (*Key, bool) {
	k, ok := t.byHash[hashShard(h)][h]
	return k, ok
}

func (t *keyTable) byIDOf(id string) (*Key, bool) {
	k, ok := t.byID[idShard(id)][id]
	return k, ok
}

// each calls f with every key of the table (by id).
func (t *keyTable) each(f func(id string, k *Key)) {
	for _, shard := range t.byID {
		for id, k := range shard {
			f(id, k)
		}
	}
}

// tableEdit makes a new table from a published one: the shards it writes
// are copied on their first write, the others shared.
type tableEdit struct {
	t              *keyTable
	ownHash, ownID [tableShards]bool
}

// edit starts a new table from t (nil: an empty one).
func edit(t *keyTable) *tableEdit {
	e := &tableEdit{t: new(keyTable)}
	if t != nil {
		*e.t = *t
	}
	return e
}

func (e *tableEdit) hashMap(i int) map[Hash]*Key {
	if !e.ownHash[i] {
		m := make(map[Hash]*Key, len(e.t.byHash[i])+1)
		for h, k := range e.t.byHash[i] {
			m[h] = k
		}
		e.t.byHash[i], e.ownHash[i] = m, true
	}
	return e.t.byHash[i]
}

func (e *tableEdit) idMap(i int) map[string]*Key {
	if !e.ownID[i] {
		m := make(map[string]*Key, len(e.t.byID[i])+1)
		for id, k := range e.t.byID[i] {
			m[id] = k
		}
		e.t.byID[i], e.ownID[i] = m, true
	}
	return e.t.byID[i]
}

// put adds k (a key of the same id must have been removed first).
func (e *tableEdit) put(k *Key) {
	m := e.hashMap(hashShard(k.hash))
	if _, ok := m[k.hash]; !ok {
		e.t.n++
	}
	m[k.hash] = k
	e.idMap(idShard(k.ID))[k.ID] = k
}

// remove takes k out.
func (e *tableEdit) remove(k *Key) {
	m := e.hashMap(hashShard(k.hash))
	if _, ok := m[k.hash]; ok {
		e.t.n--
		delete(m, k.hash)
	}
	delete(e.idMap(idShard(k.ID)), k.ID)
}

// done is the edited table, to publish; e must not be used after.
func (e *tableEdit) done() *keyTable { return e.t }
