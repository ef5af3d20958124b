// block 3 has one uncle: index 1 is null
>> {"jsonrpc":"2.0","id":1,"method":"eth_getUncleByBlockNumberAndIndex","params":["0x3","0x1"]}
<< {"jsonrpc":"2.0","id":1,"result":null}
